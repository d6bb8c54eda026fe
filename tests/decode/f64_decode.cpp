// f64_decode.cpp — incremental decoding computes what the full decoder computes (float64, tight tolerance),
// and batching sentences does not change what beam search finds:
//
//   * for every attention kind as decoder self-attention (and scaled_dot with a window), every kind allowed as
//     cross-attention, and pre-LN with learned positions: the logits of decode_step at position t equal the
//     logits of decoder_logits() over the whole prefix 0 … t at its last position, for every t, to 1e-9;
//   * the same after reordering the cache's rows (as beam search does);
//   * beam search of a batch of sentences finds, for each, what it finds for that sentence alone.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "autograd/graph.h"
#include "decode/greedy.h"
#include "decode/translate.h"
#include "decode_test_support.h"

using namespace attnlab;
using namespace attnlab::decode_testing;

namespace {

// The largest |a − b| between the step logits [B, V] and position t of the full logits [B, T, V].
double largest_difference(const Tensor& step, const Tensor& full, int64_t t) {
  const int64_t B = step.size(0), V = step.size(1), T = full.size(1);
  double worst = 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t v = 0; v < V; ++v)
      worst = std::max(worst, std::abs(step.data()[b * V + v] - full.data()[(b * T + t) * V + v]));
  return worst;
}

}  // namespace

TEST_CASE("cached decoder steps give the full prefix's logits, for every attention kind") {
  for (const DecodeCase& c : decode_cases()) {
    SUBCASE(c.name.c_str()) {
      auto model = random_model(c.config);
      NoGradGuard no_grad;
      ForwardContext ctx;
      TokenIds src = pad_batch(random_sentences(4, c.config.src_vocab));   // sources of 1, 5, 9, 4 tokens
      // Targets: bos then random tokens; row 2 ends in padding, as a finished sentence's row would.
      const int64_t T = 8;
      std::vector<std::vector<int32_t>> targets = random_sentences(4, c.config.tgt_vocab, 11);
      for (auto& t : targets) {
        t.insert(t.begin(), bos_id);
        t.resize(T, 5);
      }
      std::fill(targets[2].begin() + 5, targets[2].end(), pad_id);
      TokenIds tgt_in = pad_batch(targets);                                // [4, T]
      Tensor memory = model->encode(src, ctx);
      DecoderState state = model->start_decoding(memory, src, /*capacity=*/3);   // grows past 3
      for (int64_t t = 0; t < T; ++t) {
        TokenIds prefix{{4, t + 1}, {}};
        TokenIds newest{{4, 1}, {}};
        for (int64_t b = 0; b < 4; ++b) {
          for (int64_t j = 0; j <= t; ++j) prefix.values.push_back(tgt_in.values[b * T + j]);
          newest.values.push_back(tgt_in.values[b * T + t]);
        }
        Tensor full = model->decoder_logits(prefix, memory, src, ctx);             // [4, t + 1, V]
        Tensor step = model->decode_step(newest, state, ctx);              // [4, V]
        CAPTURE(t);
        // Padded rows (row 2 from t = 5) compute something nobody reads; compare the real ones.
        for (int64_t b = 0; b < 4; ++b) {
          if (newest.values[b] == pad_id) continue;
          double worst = 0;
          for (int64_t v = 0; v < step.size(1); ++v)
            worst = std::max(worst, std::abs(step.at({b, v}) - full.at({b, t, v})));
          CHECK(worst < 1e-9);
        }
      }
    }
  }
}

TEST_CASE("a reordered decoder cache continues the rows it was reordered from") {
  for (const DecodeCase& c : decode_cases()) {
    SUBCASE(c.name.c_str()) {
      auto model = random_model(c.config);
      NoGradGuard no_grad;
      ForwardContext ctx;
      TokenIds src = pad_batch(random_sentences(3, c.config.src_vocab));
      Tensor memory = model->encode(src, ctx);
      DecoderState state = model->start_decoding(memory, src, 8);
      // Three steps with rows 0, 1, 2; then keep rows 2, 0, 0 (one dropped, one doubled) and go on.
      const std::vector<std::vector<int32_t>> steps{{bos_id, bos_id, bos_id}, {5, 6, 7}, {8, 9, 10}};
      for (const auto& tokens : steps) model->decode_step(TokenIds{{3, 1}, tokens}, state, ctx);
      state.reorder({2, 0, 0});
      Tensor step = model->decode_step(TokenIds{{3, 1}, {11, 11, 12}}, state, ctx);   // [3, V]
      // The same histories, computed in full: rows (2), (0), (0) with the new tokens.
      TokenIds prefixes{{3, 4}, {bos_id, 7, 10, 11, bos_id, 5, 8, 11, bos_id, 5, 8, 12}};
      TokenIds reordered_src{{3, src.shape[1]}, {}};
      for (int64_t row : {2, 0, 0})
        for (int64_t s = 0; s < src.shape[1]; ++s) reordered_src.values.push_back(src.values[row * src.shape[1] + s]);
      Tensor full = model->decoder_logits(prefixes, model->encode(reordered_src, ctx), reordered_src, ctx);  // [3, 4, V]
      CHECK(largest_difference(step, full, 3) < 1e-9);
    }
  }
}

TEST_CASE("beam search over a batch finds for each sentence what it finds for that sentence alone") {
  for (const DecodeCase& c : decode_cases()) {
    SUBCASE(c.name.c_str()) {
      auto model = random_model(c.config);
      DecodeConfig config;
      config.beam = 3;
      config.length_penalty = 0.6;
      config.max_len_ratio = 1.0;
      config.max_len_extra = 3;
      const auto sentences = random_sentences(5, c.config.src_vocab);
      std::vector<Hypothesis> together = beam_search_decode(*model, pad_batch(sentences), config);
      REQUIRE(together.size() == sentences.size());
      for (size_t i = 0; i < sentences.size(); ++i) {
        std::vector<Hypothesis> alone = beam_search_decode(*model, pad_batch({sentences[i]}), config);
        CAPTURE(i);
        CHECK(alone[0].tokens == together[i].tokens);
        CHECK(std::abs(alone[0].score - together[i].score) < 1e-9);
      }
    }
  }
}
