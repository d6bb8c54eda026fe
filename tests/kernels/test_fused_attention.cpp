// test_fused_attention.cpp — the fused attention op (src/kernels/scaled_dot_attention.cpp) computes what
// the chain of plain ops computes — split_heads → Q Kᵀ → scale → masked softmax → dropout → · V → merge_heads —
// forward and backward, dropping the same weights; and its bits do not depend on the thread count.
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "kernels/kernels.h"

using namespace attnlab;

namespace {

constexpr int64_t B = 3, Tq = 7, Tk = 9;

// The two ways the kernel reads a head: d_k = 4 goes through zero-padded copies, d_k = 32 (two float packets of 16
// with AVX-512, four of 8 with AVX) is read and written in place in the tensors.
struct Heads {
  int64_t d_model, heads;
};
constexpr Heads padded_heads{16, 4}, in_place_heads{64, 2};

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

// One forward and backward (loss = Σ out ⊙ W for a fixed random W), fused or through the plain ops. With `self`,
// Q, K and V are one tensor (so its gradient gathers all three contributions), and Tk = Tq.
Run attend(bool fused, const Tensor& mask, real p, Heads shape = padded_heads, bool self = false) {
  const int64_t d_model = shape.d_model, heads = shape.heads, keys = self ? Tq : Tk;
  Generator data(21);
  Tensor Q = Tensor::randn({B, Tq, d_model}, data, 1, true);
  Tensor K = self ? Q : Tensor::randn({B, keys, d_model}, data, 1, true);
  Tensor V = self ? Q : Tensor::randn({B, keys, d_model}, data, 1, true);
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
  for (Heads shape : {padded_heads, in_place_heads}) {
    for (real p : {real(0), real(0.25)}) {
      for (bool masked : {false, true}) {
        CAPTURE(shape.d_model);
        CAPTURE(p);
        CAPTURE(masked);
        const Tensor mask = masked ? padding_and_causal_mask() : Tensor();
        const Run fused = attend(true, mask, p, shape), plain = attend(false, mask, p, shape);
        require_close(fused.out, plain.out, "output");
        require_close(fused.gQ, plain.gQ, "dQ");
        require_close(fused.gK, plain.gK, "dK");
        require_close(fused.gV, plain.gV, "dV");
      }
    }
  }
}

TEST_CASE("fused self-attention on one tensor (Q = K = V) gathers all three gradients into it, as the plain ops do") {
  for (Heads shape : {padded_heads, in_place_heads}) {
    CAPTURE(shape.d_model);
    const Run fused = attend(true, Tensor(), real(0.25), shape, true);
    const Run plain = attend(false, Tensor(), real(0.25), shape, true);
    require_close(fused.out, plain.out, "output");
    require_close(fused.gQ, plain.gQ, "d(Q = K = V)");
  }
}

TEST_CASE("fused attention gives the same bits with 1 and with 2 threads") {
  const Tensor mask = padding_and_causal_mask();
  const int threads = omp_get_max_threads();
  for (Heads shape : {padded_heads, in_place_heads}) {
    CAPTURE(shape.d_model);
    omp_set_num_threads(1);
    const Run one = attend(true, mask, real(0.25), shape);
    omp_set_num_threads(2);
    const Run two = attend(true, mask, real(0.25), shape);
    omp_set_num_threads(threads);
    CHECK(one.out == two.out);
    CHECK(one.gQ == two.gQ);
    CHECK(one.gK == two.gK);
    CHECK(one.gV == two.gV);
  }
}
