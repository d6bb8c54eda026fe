// f64_banded_attention.cpp — windowed attention computed on the band equals the masked full matrix: the same
// outputs and the same gradients for Q, K and V, with padding, with a causal mask, with queries and keys of
// different lengths and with windows wider than the sequence; and the band costs O(n·W), not O(n²), memory.
#include <doctest/doctest.h>

#include <cmath>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "kernels/kernels.h"

using namespace attnlab;

namespace {

struct Gradients {
  Tensor out, dQ, dK, dV;
};

AttentionConfig window(int64_t left, int64_t right) {
  AttentionConfig config;
  config.has_window = true;
  config.window_left = left;
  config.window_right = right;
  return config;
}

// Runs `attend` on fresh copies of Q, K, V, backpropagates Σ out ⊙ R, and returns the output and gradients.
template <class Attend>
Gradients run(const Tensor& Q, const Tensor& K, const Tensor& V, const Tensor& R, Attend attend) {
  Tensor q = Q.detach().set_requires_grad(true), k = K.detach().set_requires_grad(true),
         v = V.detach().set_requires_grad(true);
  Tensor out = attend(q, k, v);                                               // [B, h, Tq, d_k]
  sum(mul(out, R)).backward();
  return {out.detach(), Tensor::from_values(q.shape(), q.grad_values()),
          Tensor::from_values(k.shape(), k.grad_values()), Tensor::from_values(v.shape(), v.grad_values())};
}

void check_close(const Tensor& band, const Tensor& full, const char* what) {
  REQUIRE(band.shape() == full.shape());
  double worst = 0;
  for (int64_t n = 0; n < band.numel(); ++n) {
    REQUIRE(std::isfinite(band.data()[n]));
    worst = std::max(worst, std::abs(double(band.data()[n] - full.data()[n])));
  }
  INFO(what, ": largest difference ", worst);
  CHECK(worst < 1e-12);
}

// Q [B, 2, Tq, 3], K and V [B, 2, Tk, 3]: windowed attention under `mask`, banded against full, all compared.
void check_band_equals_full(const AttentionMask& mask, int64_t left, int64_t right) {
  const int64_t B = mask.batch, Tq = mask.query_len, Tk = mask.key_len;
  Generator gen(5);
  Tensor Q = Tensor::randn({B, 2, Tq, 3}, gen), K = Tensor::randn({B, 2, Tk, 3}, gen),
         V = Tensor::randn({B, 2, Tk, 3}, gen), R = Tensor::randn({B, 2, Tq, 3}, gen);
  const AttentionConfig config = window(left, right);
  const real scale_by = static_cast<real>(1 / std::sqrt(3.0));
  Gradients full = run(Q, K, V, R, [&](const Tensor& q, const Tensor& k, const Tensor& v) {
    Tensor scores = scale(matmul(q, k, false, true), scale_by);               // [B, h, Tq, Tk]
    return matmul(softmax(scores, mask.additive(config)), v);                 // [B, h, Tq, d_k]
  });
  Gradients band = run(Q, K, V, R, [&](const Tensor& q, const Tensor& k, const Tensor& v) {
    Tensor scores = scale(band_scores(q, k, left, right), scale_by);          // [B, h, Tq, W]
    return band_mix(softmax(scores, mask.band_additive(config, left, left + right + 1)), v, left);
  });
  check_close(band.out, full.out, "output");
  check_close(band.dQ, full.dQ, "∂Q");
  check_close(band.dK, full.dK, "∂K");
  check_close(band.dV, full.dV, "∂V");
}

}  // namespace

TEST_CASE("banded attention equals the masked full matrix: outputs and the gradients of Q, K and V") {
  SUBCASE("window [1, 1], no padding") { check_band_equals_full(make_length_mask({6, 6}, 6, 6, false), 1, 1); }
  SUBCASE("window [2, 1], padding (lengths 6, 3)") {
    check_band_equals_full(make_length_mask({6, 3}, 6, 6, false), 2, 1);
  }
  SUBCASE("causal, window [2, 0], padding") { check_band_equals_full(make_length_mask({5, 4}, 5, 5, true), 2, 0); }
  SUBCASE("causal mask with a window that also reaches right, [1, 2]") {
    check_band_equals_full(make_length_mask({5, 5}, 5, 5, true), 1, 2);
  }
  SUBCASE("window [7, 7] wider than the sequence: every key") {
    check_band_equals_full(make_length_mask({4, 2}, 4, 4, false), 7, 7);
  }
  SUBCASE("cross-attention, Tq 3, Tk 7, window [0, 3]") {
    check_band_equals_full(make_length_mask({7, 5}, 3, 7, false), 0, 3);
  }
  SUBCASE("a sentence of padding only: rows that see no key give 0, no NaN") {
    check_band_equals_full(make_length_mask({4, 0}, 4, 4, false), 1, 1);
  }
}

TEST_CASE("the band has W = left + right + 1 columns whatever the length: memory O(n·W), not O(n²)") {
  Generator gen(1);
  Tensor Q = Tensor::randn({1, 1, 100, 2}, gen), K = Tensor::randn({1, 1, 100, 2}, gen);
  CHECK(band_scores(Q, K, 3, 2).shape() == Shape{1, 1, 100, 6});
  CHECK(band_mix(Tensor::zeros({1, 1, 100, 6}), K, 3).shape() == Shape{1, 1, 100, 2});
}

TEST_CASE("scaled_dot with a window takes the band path and records the same full map as the masked version") {
  // The module's recorded map [B, h, Tq, Tk] must be softmax(Q Kᵀ/√d_k + window mask), recomputed here from the
  // module's own projections with the full-matrix ops.
  Generator init(3), gen(4);
  const AttentionConfig config = [] {
    AttentionConfig c = window(1, 2);
    c.kind = AttentionKind::scaled_dot;
    return c;
  }();
  std::unique_ptr<Attention> module = make_attention(config, AttentionUse::encoder_self, 8, 2, 0, init);
  module->name = "attn";
  struct Keep : AttentionRecorder {
    Tensor map;
    void record(const std::string&, const Tensor& weights) override { map = weights.detach(); }
  } recorder;
  const AttentionMask mask = make_length_mask({6, 4}, 6, 6, false);
  Tensor x = Tensor::randn({2, 6, 8}, gen);
  ForwardContext ctx;
  ctx.recorder = &recorder;
  module->forward(x, x, mask, ctx);
  auto parameter = [&](const std::string& name) {
    for (const NamedParameter& p : module->named_parameters())
      if (p.name == name) return p.tensor;
    FAIL("no parameter " << name);
    return Tensor();
  };
  auto project = [&](const std::string& which) {                              // [B, h, T, d_k]
    Tensor y = add(matmul(x, parameter(which + "_proj.weight"), false, true), parameter(which + "_proj.bias"));
    return split_heads(y, 2);
  };
  Tensor scores = scale(matmul(project("q"), project("k"), false, true), static_cast<real>(1 / std::sqrt(4.0)));
  Tensor expected = softmax(scores, mask.additive(config));                   // [B, h, Tq, Tk]
  check_close(recorder.map, expected, "recorded map");
}
