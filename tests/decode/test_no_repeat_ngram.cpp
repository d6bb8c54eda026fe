// test_no_repeat_ngram.cpp — the repetition guard (decode/no_repeat_ngram.h): the banned tokens by hand; with the
// guard on, no output of greedy (reference and cached), beam search or batched decoding repeats an n-gram, where
// the same models without it do; and N = 0 is decoding as it was.
#include <doctest/doctest.h>

#include <limits>

#include "decode/batched.h"
#include "decode/greedy.h"
#include "decode/no_repeat_ngram.h"
#include "decode/translate.h"
#include "decode_test_support.h"

using namespace attnlab;
using namespace attnlab::decode_testing;

TEST_CASE("the guard bans exactly the tokens that would complete an n-gram already in the output") {
  const std::vector<int32_t> output{5, 6, 7, 5, 6};
  CHECK(banned_next_tokens(output, 3) == std::vector<int32_t>{7});          // (5, 6) was followed by 7
  CHECK(banned_next_tokens(output, 2) == std::vector<int32_t>{7});          // (6) was followed by 7
  CHECK(banned_next_tokens(output, 1) == std::vector<int32_t>{5, 6, 7});    // every token already output
  CHECK(banned_next_tokens(output, 4).empty());                             // (7, 5, 6) is new
  CHECK(banned_next_tokens(output, 0).empty());                             // off
  CHECK(banned_next_tokens({5, 5, 5}, 2) == std::vector<int32_t>{5});       // each banned token once
  CHECK(banned_next_tokens({}, 1).empty());
  CHECK(has_repeated_ngram({5, 6, 7, 5, 6}, 2));
  CHECK_FALSE(has_repeated_ngram({5, 6, 7, 5, 6}, 3));
  float logits[4] = {1, 2, 3, 4};
  ban_tokens(logits, {1, 3});
  CHECK(logits[0] == 1);
  CHECK(logits[1] == -std::numeric_limits<float>::infinity());
  CHECK(logits[3] == -std::numeric_limits<float>::infinity());
}

namespace {

// The outputs of every decoding path of `config` on `src`: greedy reference, cached greedy, beam search, batched.
std::vector<std::vector<std::vector<int32_t>>> every_path(Seq2Seq& model, const TokenIds& src,
                                                          const std::vector<std::vector<int32_t>>& sources,
                                                          DecodeConfig config) {
  config.beam = 1;
  std::vector<std::vector<std::vector<int32_t>>> outputs{greedy_decode(model, src, config),
                                                         greedy_decode_cached(model, src, config)};
  config.beam = 3;
  outputs.push_back(translate_ids(model, src, config));
  config.batch_tokens = 12;                                      // several batches
  outputs.push_back(translate_batched(model, sources, config));
  return outputs;
}

int64_t outputs_with_repeats(const std::vector<std::vector<std::vector<int32_t>>>& outputs, int64_t n) {
  int64_t count = 0;
  for (const auto& path : outputs) {
    for (const std::vector<int32_t>& output : path) count += has_repeated_ngram(output, n);
  }
  return count;
}

}  // namespace

TEST_CASE("with decode.no_repeat_ngram = N no output repeats an n-gram of N tokens, on every decoding path") {
  const std::vector<std::vector<int32_t>> sources = random_sentences(8, 17);
  const TokenIds src = pad_batch(sources);
  for (const DecodeCase& c : {decode_cases().front(), decode_cases().back()}) {
    auto model = random_model(c.config);
    for (int64_t n : {1, 2, 3}) {
      INFO(c.name, ", N = ", n);
      DecodeConfig config;
      const int64_t unguarded = outputs_with_repeats(every_path(*model, src, sources, config), n);
      CHECK(unguarded > 0);                                      // the random model does repeat itself
      config.no_repeat_ngram = n;
      const auto guarded = every_path(*model, src, sources, config);
      CHECK(outputs_with_repeats(guarded, n) == 0);
      CHECK(guarded[0] == guarded[1]);                           // the reference and the cache ban alike
    }
  }
}

TEST_CASE("N = 0 changes nothing: the outputs and beam scores are those of a guard that can never trigger") {
  const TokenIds src = pad_batch(random_sentences(8, 17));
  for (const DecodeCase& c : decode_cases()) {
    INFO(c.name);
    auto model = random_model(c.config);
    DecodeConfig off, never;
    never.no_repeat_ngram = 1000;                               // longer than any output: bans nothing
    off.beam = never.beam = 1;
    CHECK(greedy_decode_cached(*model, src, off) == greedy_decode_cached(*model, src, never));
    off.beam = never.beam = 4;
    const std::vector<Hypothesis> a = beam_search_decode(*model, src, off), b = beam_search_decode(*model, src, never);
    for (size_t s = 0; s < a.size(); ++s) {
      CHECK(a[s].tokens == b[s].tokens);
      CHECK(a[s].score == b[s].score);                           // bit for bit
    }
  }
}
