// test_reader_refusals.cpp — files a tokenizer reader must refuse with one message naming them: the cases the coverage
// report (tools/coverage.sh, docs/guide/reliability.md "Coverage") found no test for.
//
// A tokenizer is read back from what save() wrote: <prefix>.vocab (word, char: one piece a line, the four special
// pieces first) or <prefix>.model (bpe, unigram: a sentencepiece model whose special ids attnlab pins to
// pad 0, bos 1, eos 2, unk 3). An id outside the vocabulary, handed to decode or pieces, is refused too.
#include <doctest/doctest.h>
#include <sentencepiece_trainer.h>

#include <filesystem>
#include <fstream>

#include "data/tokenizers/tokenizer.h"
#include "test_support.h"
#include "util/error.h"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

TokenizerConfig config_of(TokenizerKind kind) {
  TokenizerConfig config;
  config.kind = kind;
  config.vocab_size = 0;
  return config;
}

}  // namespace

TEST_CASE("a word vocabulary that lists a piece twice is refused, naming the file, the line and the first one") {
  const fs::path directory = testing::fresh_directory("test_reader_refusals", "twice");
  std::ofstream(directory / "words.vocab") << "<pad>\n<s>\n</s>\n<unk>\nthe\ndog\nthe\n";
  CHECK_THROWS_WITH_AS(load_tokenizer(config_of(TokenizerKind::word), (directory / "words").string()),
                       doctest::Contains("words.vocab:7: \"the\" appears twice (first on line 5)"), Error);
}

TEST_CASE("a sentencepiece model trained outside attnlab, with other special ids, is refused naming its ids") {
  const fs::path directory = testing::fresh_directory("test_reader_refusals", "foreign_model");
  std::ofstream(directory / "text.txt") << "the dog sees the cat\nthe cat sees a bird\na bird sees the dog\n";
  // sentencepiece's own defaults: unk 0, bos 1, eos 2 and no pad (-1) — not attnlab's pad 0, bos 1, eos 2, unk 3.
  const auto status = sentencepiece::SentencePieceTrainer::Train(
      "--input=" + (directory / "text.txt").string() + " --model_prefix=" + (directory / "foreign").string() +
      " --model_type=char --vocab_size=20 --minloglevel=1");
  REQUIRE_MESSAGE(status.ok(), status.ToString());
  const std::string prefix = (directory / "foreign").string();
  CHECK_THROWS_WITH_AS(load_tokenizer(config_of(TokenizerKind::unigram), prefix),
                       doctest::Contains("foreign.model was not trained by attnlab: its special ids are pad -1, bos 1, "
                                         "eos 2, unk 0 (attnlab needs 0, 1, 2, 3)"),
                       Error);
}

TEST_CASE("an id outside the vocabulary is refused by decode and pieces of every kind, naming the id and the range") {
  const fs::path directory = testing::fresh_directory("test_reader_refusals", "outside");
  const std::vector<std::string> text = {"the dog sees the cat", "the cat sees a bird", "a bird sees the dog"};
  for (TokenizerKind kind : {TokenizerKind::word, TokenizerKind::character, TokenizerKind::bpe}) {
    CAPTURE(name_of(kind));
    TokenizerConfig config = config_of(kind);
    if (kind == TokenizerKind::bpe) config.vocab_size = 20;
    const auto tokenizer = train_tokenizer(config, text, (directory / name_of(kind)).string());
    const int32_t past_end = static_cast<int32_t>(tokenizer->vocab_size());
    const std::string range = "(0 … " + std::to_string(past_end - 1) + ")";
    const std::string past_end_message = std::to_string(past_end) + " is outside the vocabulary " + range;
    const std::string negative_message = "-1 is outside the vocabulary " + range;
    CHECK_THROWS_WITH_AS(tokenizer->decode({4, past_end}), doctest::Contains(past_end_message.c_str()), Error);
    CHECK_THROWS_WITH_AS(tokenizer->pieces({-1}), doctest::Contains(negative_message.c_str()), Error);
  }
}
