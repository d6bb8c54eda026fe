// test_toy_en_recognizer.cpp — the recognizer of the toy grammar's English (data/synthetic/toy_en_fr_recognizer.h)
// accepts every sentence the generator wrote and refuses sentences that break its syntax or its agreement.
#include <doctest/doctest.h>

#include "data/corpus.h"
#include "data/synthetic/toy_en_fr.h"
#include "data/synthetic/toy_en_fr_recognizer.h"

using namespace attnlab;

TEST_CASE("every English sentence of the shipped toy-en-fr corpus is a sentence of the toy grammar") {
  int64_t sentences = 0, refused = 0;
  for (const char* split : {"train", "valid", "test"}) {
    for (const std::string& line : read_lines(std::string(ATTNLAB_SOURCE_DIR) + "/data/toy-en-fr/" + split + ".en")) {
      ++sentences;
      if (!is_toy_english_sentence(line)) {
        ++refused;
        if (refused <= 5) FAIL_CHECK("refused: " << line);
      }
    }
  }
  CHECK(sentences == 22000);
  CHECK(refused == 0);
}

TEST_CASE("fresh sentences from the generator are recognized too") {
  Generator generator(2026);
  for (int i = 0; i < 2000; ++i) {
    const std::string english = draw_toy_en_fr_pair(generator).first;
    CAPTURE(english);
    CHECK(is_toy_english_sentence(english));
  }
}

TEST_CASE("sentences that break the grammar's syntax or agreement are refused") {
  CHECK(is_toy_english_sentence("the cats sleep ."));
  CHECK(is_toy_english_sentence("an old elephant finds the cup ."));
  CHECK(is_toy_english_sentence("you all do not wait for these mothers ."));
  CHECK(is_toy_english_sentence("the baby who is happy sleeps near the market ."));
  for (const char* wrong : {
           "the cats sleeps .",                    // subject–verb agreement
           "the cat sleep .",
           "a cats sleep .",                       // determiner–noun agreement
           "two cat sleep .",
           "the cat sleeps",                       // no final "."
           "cat the sleeps .",                     // word order
           "the cat .",                            // no verb
           "the cat does not sleeps .",            // do-support takes the base form
           "the cats is happy .",                  // be agrees with the subject
           "i is happy .",                         // i, you, we take no predicate adjective in this grammar
           "the king reads .",                     // a verb with an object needs one
           "the cat sleeps the table .",           // … and one without takes none
           "the cat sleeps . the dog sleeps .",    // one sentence
           "",
       }) {
    CAPTURE(wrong);
    CHECK_FALSE(is_toy_english_sentence(wrong));
  }
}
