// f64_attention_local_hard.cpp — facts about local attention (local_m, local_p: src/attention/local.cpp), in
// float64 (hard attention's are in f64_hard_attention.cpp).
//
// Their gradient checks are `attnlab gradcheck --op attention.local_m` / `attention.local_p`
// (src/attention/checks/local.cpp); the facts every kind must satisfy inside a model — causality, padding,
// batching, recorded maps, the KV cache — run for them in f64_model.cpp and f64_decode.cpp. Here:
//   * local_m as self-attention is scaled_dot with a window [D, D] (encoder) or [D, 0] (decoder);
//   * local_m's cross-attention centre is min(i, S − 1); local_p's is S · σ(v_pᵀ tanh(W_p x_i)), per head, and
//     its weights are the softmax over the window times the Gaussian, written out again here with loops;
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "attention_test_support.h"
#include "autograd/ops.h"
#include "util/error.h"

using namespace attnlab;
using namespace attnlab::attention_test;
// ------------------------------------------------------------------ local attention

TEST_CASE("local_m as self-attention is scaled_dot with a window [D, D] (encoder) or [D, 0] (decoder)") {
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const AttentionUse use = causal ? AttentionUse::decoder_self : AttentionUse::encoder_self;
    auto local = make(kind_config(AttentionKind::local_m, 2), use);
    AttentionConfig window = kind_config(AttentionKind::scaled_dot);
    window.has_window = true;
    window.window_left = 2;
    window.window_right = causal ? 0 : 2;
    auto scaled_dot = make(window, use, 8, 2, /*seed=*/99);                 // other weights, then copied over
    for (const NamedParameter& p : local->named_parameters()) parameter_named(*scaled_dot, p.name).values() = p.tensor.values();
    Generator gen(3);
    const Tensor x = Tensor::randn({2, 7, 8}, gen);
    const AttentionMask mask = make_length_mask({7, 5}, 7, 7, causal);
    Keeper a, b;
    const Tensor local_out = run(*local, x, x, mask, a);
    const Tensor window_out = run(*scaled_dot, x, x, mask, b);
    for (int64_t row : {0, 1})
      for (int64_t i = 0; i < (row == 0 ? 7 : 5); ++i)                      // the real queries
        for (int64_t c = 0; c < 8; ++c) CHECK(local_out.at({row, i, c}) == doctest::Approx(window_out.at({row, i, c})).epsilon(1e-12));
  }
  // And a window of D = 2 really is narrower than the whole sentence: the output differs from scaled_dot's.
  auto local = make(kind_config(AttentionKind::local_m, 2), AttentionUse::encoder_self);
  auto global = make(kind_config(AttentionKind::scaled_dot), AttentionUse::encoder_self);
  Generator gen(3);
  const Tensor x = Tensor::randn({1, 7, 8}, gen);
  const AttentionMask mask = make_length_mask({7}, 7, 7, false);
  Keeper a, b;
  CHECK(largest_difference(run(*local, x, x, mask, a), run(*global, x, x, mask, b)) > 1e-3);
}

TEST_CASE("local_m cross-attention centres on p_i = min(i, S − 1) and gives keys outside [p_i − D, p_i + D] weight 0") {
  auto local = make(kind_config(AttentionKind::local_m, 1), AttentionUse::cross);
  Generator gen(4);
  const Tensor x = Tensor::randn({2, 6, 8}, gen), memory = Tensor::randn({2, 4, 8}, gen);
  const std::vector<int64_t> lengths{4, 3};
  Keeper keeper;
  run(*local, x, memory, make_length_mask(lengths, 6, 4, false), keeper);
  REQUIRE(keeper.stages.at("p_head1").shape() == Shape{2, 6});             // [B, Tq], one stage per head
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t head = 0; head < 2; ++head)
      for (int64_t i = 0; i < 6; ++i) {
        const double centre = double(std::min<int64_t>(i, lengths[static_cast<size_t>(b)] - 1));
        CHECK(centre_of(keeper, b, head, i) == centre);
        double total = 0;
        for (int64_t j = 0; j < 4; ++j) {
          const double w = keeper.map.at({b, head, i, j});
          if (std::abs(double(j) - centre) > 1 || j >= lengths[static_cast<size_t>(b)]) CHECK(w == 0);
          total += w;
        }
        CHECK(total == doctest::Approx(1).epsilon(1e-12));                 // local_m: a plain softmax
      }
}

TEST_CASE("local_p: p_i = S · σ(v_pᵀ tanh(W_p x_i)) per head, and a_ij = softmax over the window × e^(−(j − p_i)²/2σ²)") {
  const int64_t D = 2, d_model = 8, heads = 2, d_k = 4;
  auto local = make(kind_config(AttentionKind::local_p, D), AttentionUse::cross, d_model, heads);
  const Tensor W_p = parameter_named(*local, "position_proj.weight");      // [d_model, d_model]
  Tensor v_p = parameter_named(*local, "position_score.weight");           // [heads, d_k]
  REQUIRE(W_p.shape() == Shape{d_model, d_model});
  REQUIRE(v_p.shape() == Shape{heads, d_k});
  Generator gen(6);
  for (real& w : v_p.values()) w *= 4;                                     // spread the centres over the source
  const Tensor x = Tensor::randn({2, 3, d_model}, gen), memory = Tensor::randn({2, 7, d_model}, gen);
  const std::vector<int64_t> lengths{7, 5};
  Keeper keeper;
  run(*local, x, memory, make_length_mask(lengths, 3, 7, false), keeper);
  const Tensor& scores = keeper.stages.at("scores");                        // [B, h, Tq, Tk], −∞ where hidden
  const double sigma = D / 2.0;
  double spread_low = 1e9, spread_high = -1e9;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t head = 0; head < heads; ++head)
      for (int64_t i = 0; i < 3; ++i) {
        double z = 0;                                                       // v_p,hᵀ tanh(W_p,h x_i), by loops
        for (int64_t c = 0; c < d_k; ++c) {
          double hidden = 0;
          for (int64_t e = 0; e < d_model; ++e) hidden += W_p.at({head * d_k + c, e}) * x.at({b, i, e});
          z += v_p.at({head, c}) * std::tanh(hidden);
        }
        const double S = double(lengths[static_cast<size_t>(b)] - 1);
        const double centre = S / (1 + std::exp(-z));
        CHECK(centre_of(keeper, b, head, i) == doctest::Approx(centre).epsilon(1e-12));
        spread_low = std::min(spread_low, centre);
        spread_high = std::max(spread_high, centre);
        // softmax over the keys of the window (real, |j − p| ≤ D), times the Gaussian; nothing elsewhere.
        double max = -1e300, total = 0, row_sum = 0;
        for (int64_t j = 0; j < 7; ++j) {
          if (j < lengths[static_cast<size_t>(b)] && std::abs(j - centre) <= D) max = std::max(max, double(scores.at({b, head, i, j})));
        }
        for (int64_t j = 0; j < 7; ++j) {
          if (j < lengths[static_cast<size_t>(b)] && std::abs(j - centre) <= D) total += std::exp(scores.at({b, head, i, j}) - max);
        }
        for (int64_t j = 0; j < 7; ++j) {
          const bool inside = j < lengths[static_cast<size_t>(b)] && std::abs(j - centre) <= D;
          const double expected = inside ? std::exp(scores.at({b, head, i, j}) - max) / total *
                                               std::exp(-(j - centre) * (j - centre) / (2 * sigma * sigma))
                                         : 0.0;
          CHECK(keeper.map.at({b, head, i, j}) == doctest::Approx(expected).epsilon(1e-12));
          row_sum += keeper.map.at({b, head, i, j});
        }
        CHECK(row_sum <= 1 + 1e-12);                                         // not renormalised, as in the paper
        CHECK(row_sum >= std::exp(-2.0) - 1e-12);                            // every weight keeps ≥ e^(−D²/2σ²)
      }
  CHECK(spread_high - spread_low > 1);                                       // the centres really differ
}

TEST_CASE("local_p as decoder self-attention looks no later than i: S_i = i") {
  auto local = make(kind_config(AttentionKind::local_p, 1), AttentionUse::decoder_self);
  Generator gen(8);
  const Tensor x = Tensor::randn({1, 5, 8}, gen);
  Keeper keeper;
  run(*local, x, x, make_length_mask({5}, 5, 5, true), keeper);
  for (int64_t head = 0; head < 2; ++head)
    for (int64_t i = 0; i < 5; ++i) {
      const double p = centre_of(keeper, 0, head, i);
      CHECK(p >= 0);
      CHECK(p <= double(i));
      for (int64_t j = i + 1; j < 5; ++j) CHECK(keeper.map.at({0, head, i, j}) == 0);
    }
}

TEST_CASE("local attention refuses a `window` (it has local_width) and a local_width below 1") {
  AttentionConfig config = kind_config(AttentionKind::local_p, 2);
  config.has_window = true;
  CHECK_THROWS_WITH_AS(make(config, AttentionUse::cross), doctest::Contains("local_width"), Error);
  CHECK_THROWS_WITH_AS(make(kind_config(AttentionKind::local_m, 0), AttentionUse::cross), doctest::Contains("local_width"), Error);
}

