// score_text_files.cpp — prints, as one JSON object, the 13a tokens, BLEU statistics, BLEU and chrF of a
// hypothesis file against a reference file (one sentence per line). tools/check_bleu_nltk.py compares these
// with an independent tokenizer (Python's re, with sacreBLEU's patterns) and NLTK's corpus_bleu.
//   usage: score_text_files HYPOTHESES REFERENCES
#include <cstdio>
#include <nlohmann/json.hpp>

#include "data/corpus.h"
#include "decode/bleu.h"
#include "decode/chrf.h"
#include "util/error.h"

using namespace attnlab;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: score_text_files HYPOTHESES REFERENCES\n");
    return 2;
  }
  try {
    const std::vector<std::string> hypotheses = read_lines(argv[1]), references = read_lines(argv[2]);
    nlohmann::json out;
    out["hyp_tokens"] = nlohmann::json::array();
    out["ref_tokens"] = nlohmann::json::array();
    for (const std::string& line : hypotheses) out["hyp_tokens"].push_back(tokenize_13a(line));
    for (const std::string& line : references) out["ref_tokens"].push_back(tokenize_13a(line));
    BleuScore bleu = corpus_bleu(hypotheses, references);
    out["bleu"] = bleu.score;
    out["brevity_penalty"] = bleu.brevity_penalty;
    out["correct"] = bleu.stats.correct;
    out["total"] = bleu.stats.total;
    out["chrf"] = corpus_chrf(hypotheses, references);
    std::printf("%s\n", out.dump().c_str());
  } catch (const Error& e) {
    std::fprintf(stderr, "score_text_files: %s\n", e.what());
    return 1;
  }
  return 0;
}
