// Exercise additive_score (chapter attention): Bahdanau's additive score, for one head.
//
// Dot-product attention measures how well query i matches key j by q_i · k_j. Bahdanau, Cho & Bengio (2015,
// §3.1 and appendix A.1.2) let a tiny network with one hidden layer learn the match instead:
//
//   e_ij = vᵀ tanh(W s_{i−1} + U h_j)          the paper: s the decoder's state, h_j the source's annotations
//
// attnlab's additive attention (src/attention/additive.cpp) is that score inside the multi-head frame. Per head,
// with d_k = d_model / heads:
//
//   q_i  = W_q x_i + b_q                        [d_k]   query i, projected (q_proj: a Linear, with its bias)
//   k_j  = W_k m_j + b_k                        [d_k]   key j, projected (k_proj)
//   e_ij = wᵀ tanh(q_i + k_j)                           w [d_k] is the paper's v (score_proj.weight, row h)
//        = Σ_c w_c · tanh(q_ic + k_jc)
//
// Every query is paired with every key: the hidden layer tanh(q_i + k_j) is taken for each pair (i, j), then
// w weighs its d_k numbers into one score. The scores are not divided by √d_k (additive.cpp says why).
//
// Shapes: x [Tq, d_model], one row per query position; memory [Tk, d_model], one row per key position (the
// same tensor as x in self-attention). W_q, W_k [d_k, d_model] and b_q, b_k, w [d_k] are one head's
// (exercise.h). Return e [Tq, Tk]: row i holds query i's scores, e_ij at e.data()[i * Tk + j].
// Element (r, c) of a [rows, cols] tensor t is t.data()[r * cols + c]; t.size(0) is rows, t.size(1) cols.
// Loops are fine here; so are the engine's ops (src/autograd/ops.h: matmul(a, b, false, true) is a bᵀ, add
// broadcasts a [d_k] bias over the rows, tanh).
//
// Check:  tools/exercise.sh additive_score
//   builds the library's additive attention module, hands you one head's parameters, and compares your e with
//   the scores its forward pass computes (score() in src/attention/additive.cpp), head by head.
#include <cmath>

#include "autograd/ops.h"
#include "exercise.h"

namespace attnlab::exercises {

Tensor additive_score(const Tensor& x, const Tensor& memory, const AdditiveHead& head) {
  const int64_t Tq = x.size(0), Tk = memory.size(0);
  Tensor e = Tensor::zeros({Tq, Tk});                                // [Tq, Tk], row i: query i's scores
  // TODO: project the queries and the keys, then e_ij = wᵀ tanh(q_i + k_j) for every pair (i, j).
  return e;
}

}  // namespace attnlab::exercises
