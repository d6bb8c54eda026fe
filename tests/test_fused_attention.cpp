// test_fused_attention.cpp — the fused attention op (src/autograd/ops/scaled_dot_attention.cpp) computes what
// the chain of plain ops computes — split_heads → Q Kᵀ → scale → masked softmax → dropout → · V → merge_heads —
// forward and backward, dropping the same weights; and its bits do not depend on the thread count.
#include <doctest/doctest.h>

#include <omp.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"

using namespace attnlab;

namespace {

constexpr int64_t B = 3, Tq = 7, Tk = 9, d_model = 16, heads = 4;

Tensor padding_and_causal_mask() {                                       // [B, 1, Tq, Tk]; sentence 2's last
  Tensor m = Tensor::zeros({B, 1, Tq, Tk});                               // query sees nothing
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < Tq; ++i)
      for (int64_t j = 0; j < Tk; ++j)
        if (j > i + 1 || j >= Tk - 2 * b || (b == 2 && i == Tq - 1))
          m.data()[(b * Tq + i) * Tk + j] = -std::numeric_limits<real>::infinity();
  return m;
}

struct Run {
  std::vector<real> out, gQ, gK, gV;
};

// One forward and backward (loss = Σ out ⊙ W for a fixed random W), fused or through the plain ops.
Run attend(bool fused, const Tensor& mask, real p) {
  Generator data(21);
  Tensor Q = Tensor::randn({B, Tq, d_model}, data, 1, true);
  Tensor K = Tensor::randn({B, Tk, d_model}, data, 1, true);
  Tensor V = Tensor::randn({B, Tk, d_model}, data, 1, true);
  Tensor W = Tensor::randn({B, Tq, d_model}, data);
  Generator dropout_gen(7);
  const real s = static_cast<real>(1 / std::sqrt(double(d_model / heads)));
  Tensor out;
  if (fused) {
    out = scaled_dot_attention(Q, K, V, heads, s, mask, p, &dropout_gen);             // [B, Tq, d_model]
  } else {
    Tensor scores = scale(matmul(split_heads(Q, heads), split_heads(K, heads), false, true), s);  // [B, h, Tq, Tk]
    Tensor weights = softmax(scores, mask);
    if (p > 0) weights = dropout(weights, p, dropout_gen);
    out = merge_heads(matmul(weights, split_heads(V, heads)));                          // [B, Tq, d_model]
  }
  sum(mul(out, W)).backward();
  return {out.values(), Q.grad_values(), K.grad_values(), V.grad_values()};
}

void require_close(const std::vector<real>& fused, const std::vector<real>& plain, const char* what) {
  REQUIRE(fused.size() == plain.size());
  for (size_t i = 0; i < fused.size(); ++i) {
    INFO(what, " number ", i, ": fused ", fused[i], ", plain ops ", plain[i]);
    REQUIRE(std::abs(double(fused[i]) - double(plain[i])) <= 1e-5 * (1 + std::abs(double(plain[i]))));
  }
}

}  // namespace

TEST_CASE("fused attention = split heads, scaled Q Kᵀ, masked softmax, dropout, · V, merge heads (forward and "
          "backward)") {
  for (real p : {real(0), real(0.25)}) {
    for (bool masked : {false, true}) {
      CAPTURE(p);
      CAPTURE(masked);
      const Tensor mask = masked ? padding_and_causal_mask() : Tensor();
      const Run fused = attend(true, mask, p), plain = attend(false, mask, p);
      require_close(fused.out, plain.out, "output");
      require_close(fused.gQ, plain.gQ, "dQ");
      require_close(fused.gK, plain.gK, "dK");
      require_close(fused.gV, plain.gV, "dV");
    }
  }
}

TEST_CASE("fused attention gives the same bits with 1 and with 2 threads") {
  const Tensor mask = padding_and_causal_mask();
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const Run one = attend(true, mask, real(0.25));
  omp_set_num_threads(2);
  const Run two = attend(true, mask, real(0.25));
  omp_set_num_threads(threads);
  CHECK(one.out == two.out);
  CHECK(one.gQ == two.gQ);
  CHECK(one.gK == two.gK);
  CHECK(one.gV == two.gV);
}
