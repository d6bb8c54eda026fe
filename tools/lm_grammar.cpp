// lm_grammar.cpp — does a language model of the toy English write the toy grammar? Greedy continuations of 100
// prompts, each checked by the grammar's recognizer (src/data/synthetic/toy_en_fr_recognizer.h).
//
// The prompts are the first two words of the first 100 sentences of data/toy-en-fr/test.en, which no model of
// configs/toy-en-lm.yaml trains on; each runs to the model's eos (at most 40 words), at temperature 0. Prints how
// many of the 100 are sentences of the grammar and the first ten that are not; exits 1 below the share asked for.
// tools/lm_grammar.sh trains configs/toy-en-lm.yaml and runs this; so does ctest's cli.lm_grammar
// (tests/cli/lm_grammar_test.sh: all 1,500 steps on one thread, about 20–30 s). Run: ./build/release/lm_grammar RUN_DIR [MIN_PERCENT, default 90] [SOURCE_DIR, default .]
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "data/corpus.h"
#include "data/synthetic/toy_en_fr_recognizer.h"
#include "gpt/language_model.h"

using namespace attnlab;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: lm_grammar RUN_DIR [MIN_PERCENT] [SOURCE_DIR]\n");
    return 2;
  }
  const int least = argc > 2 ? std::atoi(argv[2]) : 90;
  const std::string source = argc > 3 ? argv[3] : ".";
  try {
    const LoadedLanguageModel run = load_language_model(argv[1]);
    const std::vector<std::string> test = read_lines(source + "/data/toy-en-fr/test.en");
    int grammatical = 0, shown = 0;
    for (size_t i = 0; i < 100 && i < test.size(); ++i) {
      const std::string prompt = test[i].substr(0, test[i].find(' ', test[i].find(' ') + 1));   // two words
      const std::string sentence = prompt + " " + generate_text(run, prompt, 40, {0.0, 0, 1.0}, 1);
      if (is_toy_english_sentence(sentence)) ++grammatical;
      else if (shown++ < 10) std::printf("  not in the grammar: %s\n", sentence.c_str());
    }
    std::printf("%d of 100 greedy continuations are sentences of the toy grammar (step %lld of %s; at least %d "
                "asked)\n", grammatical, static_cast<long long>(run.step), argv[1], least);
    return grammatical >= least ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lm_grammar: %s\n", e.what());
    return 1;
  }
}
