// answer.cpp — the project's answer to the additive_score exercise. Try exercise.cpp first: the check tells you
// where you are wrong.
//
// The library computes every head's scores at once as ops (score() in src/attention/additive.cpp): it reshapes
// Q [B, h, Tq, d_k] to [B·h, Tq, 1, d_k] and K to [B·h, 1, Tk, d_k], so that one broadcast add makes every
// q_i + k_j, then tanh, a product with w along d_k and a sum over it. The loops below are the same sums for one
// head; score_one() there is the inner loop, for one query and one key.
#include <cmath>

#include "autograd/ops.h"
#include "exercise.h"

namespace attnlab::exercises {

namespace {

// y = x Wᵀ + b, one row per position: x [T, d_model], W [d_k, d_model], b [d_k] → [T, d_k] (nn/linear.h).
Tensor project(const Tensor& x, const Tensor& W, const Tensor& b) {
  return add(matmul(x, W, /*transpose_a=*/false, /*transpose_b=*/true), b);   // [T, d_k]
}

}  // namespace

Tensor additive_score(const Tensor& x, const Tensor& memory, const AdditiveHead& head) {
  const Tensor q = project(x, head.W_q, head.b_q);                            // [Tq, d_k], row i = q_i
  const Tensor k = project(memory, head.W_k, head.b_k);                       // [Tk, d_k], row j = k_j
  const int64_t Tq = q.size(0), Tk = k.size(0), d_k = q.size(1);
  const real* w = head.w.data();                                              // [d_k], Bahdanau's v
  Tensor e = Tensor::zeros({Tq, Tk});                                         // [Tq, Tk]
  for (int64_t i = 0; i < Tq; ++i) {
    for (int64_t j = 0; j < Tk; ++j) {
      const real* q_i = q.data() + i * d_k;                                   // [d_k]
      const real* k_j = k.data() + j * d_k;                                   // [d_k]
      real e_ij = 0;                                                          // wᵀ tanh(q_i + k_j)
      for (int64_t c = 0; c < d_k; ++c) e_ij += w[c] * std::tanh(q_i[c] + k_j[c]);
      e.data()[i * Tk + j] = e_ij;
    }
  }
  return e;                                                                   // row i: query i's scores
}

}  // namespace attnlab::exercises
