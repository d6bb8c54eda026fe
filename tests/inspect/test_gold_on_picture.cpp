// test_gold_on_picture.cpp — the gold a picture is drawn with (src/inspect/align/gold_on_picture.h): found only for
// a corpus line shown with its reference, laid over word pieces, and scored as attnlab align scores it.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "inspect/align/alignment_methods.h"
#include "inspect/align/gold_on_picture.h"
#include "inspect/maps/attention_maps.h"
#include "inspect_test_support.h"
#include "test_support.h"

using namespace attnlab;

namespace {

const std::string english = "a happy girl does not go .", french = "une fille heureuse ne va pas .";
const std::string pharaoh = "0-0 1-2 2-1 3?4 4?3 4-5 5-4 6-6";

// An untrained run held in memory whose config's test split is one line, `english` → `french`, with its gold.
LoadedRun gold_run(TokenizerKind tokenizer, const std::string& name) {
  LoadedRun run = testing::small_run({AttentionKind::scaled_dot, AttentionKind::scaled_dot, {english, french},
                                      NormPlacement::post, tokenizer, 2, /*dropout=*/0, /*seed=*/5});
  const auto dir = testing::fresh_directory("gold_on_picture", name);
  std::ofstream(dir / "test.en") << english << "\n";
  std::ofstream(dir / "test.fr") << french << "\n";
  std::ofstream(dir / "test.align") << pharaoh << "\n";
  run.config.data.test_src = (dir / "test.en").string(), run.config.data.test_tgt = (dir / "test.fr").string();
  return run;
}

}  // namespace

TEST_CASE("a corpus line shown with its reference has its gold, and every view its AER as attnlab align scores it") {
  LoadedRun run = gold_run(TokenizerKind::word, "word");
  const AttentionPicture picture = record_attention(run, english, french);
  const PictureGold gold = find_gold(run, picture);
  REQUIRE(gold.found);
  CHECK(gold.split == "test");
  CHECK(gold.line == 1);
  CHECK(format_alignment(gold.alignment) == pharaoh);
  CHECK(gold.source_word_of == std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6});
  CHECK(gold.target_word_of == std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, -1});   // </s> predicts no word
  const SentenceAlignment pair = align_sentence(run, english, french, "the pair");
  size_t compared = 0;
  for (const auto& [name, counts] : gold.scores) {
    for (const MethodMatrix& matrix : pair.methods) {
      if (matrix.name != name) continue;
      const std::vector<real> weights(matrix.words.begin(), matrix.words.end());
      CHECK(counts.aer() == count_alignment(argmax_alignment(weights.data(), 7, 7), gold.alignment).aer());
      ++compared;
    }
  }
  CHECK(compared == gold.scores.size());   // every view's name is one of attnlab align's methods
}

TEST_CASE("word pieces: every character of a word is laid over that word, the spaces over none") {
  LoadedRun run = gold_run(TokenizerKind::character, "char");
  const AttentionPicture picture = record_attention(run, english, french);
  const PictureGold gold = find_gold(run, picture);
  REQUIRE(gold.found);
  REQUIRE(gold.source_word_of.size() == english.size());           // one token a character, spaces included
  for (size_t k = 0, word = 0; k < english.size(); ++k) {
    if (english[k] == ' ') {
      CHECK(gold.source_word_of[k] == -1);
      ++word;
    } else {
      CHECK(gold.source_word_of[k] == static_cast<int32_t>(word));
    }
  }
  CHECK(gold.target_word_of.back() == -1);
}

TEST_CASE("no gold, and why: another translation, a sentence of no corpus line, a corpus with no .align") {
  LoadedRun run = gold_run(TokenizerKind::word, "none");
  const PictureGold other = find_gold(run, record_attention(run, english, "une fille va ."));
  CHECK_FALSE(other.found);
  CHECK(other.reference == french);
  CHECK(other.why.find("is not its reference") != std::string::npos);
  const PictureGold typed = find_gold(run, record_attention(run, "a girl goes .", french));
  CHECK_FALSE(typed.found);
  CHECK(typed.why.find("not one of the corpus's test sentences") != std::string::npos);   // no valid split here
  std::filesystem::remove(alignment_path_for(run.config.data.test_tgt));
  const PictureGold unreadable = find_gold(run, record_attention(run, english, french));
  CHECK_FALSE(unreadable.found);
  CHECK(unreadable.why.find("this corpus has no alignments") != std::string::npos);
}
