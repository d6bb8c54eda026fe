// Exercise attention_chain (chapter attention): scaled dot-product attention as a chain of ops.
//
// Each query position i builds its output as a weighted mix of the values, weighted by how well query i matches
// each key (Vaswani et al. 2017, §3.2.1):
//
//   Attention(Q, K, V) = softmax(Q Kᵀ / √d_k + mask) V
//
//   scores   = Q Kᵀ / √d_k         [B, h, Tq, Tk]   one score per query and key; why √d_k: for random q, k with
//                                                   unit-variance entries q·k has variance d_k, and a softmax of
//                                                   large scores saturates (its gradients vanish)
//   weights  = softmax(scores + mask)                rows sum to 1; the mask is 0 for a key the query may see,
//                                                   −∞ for one it may not (padding, the future): weight exactly 0
//   output   = weights V           [B, h, Tq, d_v]
//
// Shapes: the heads are already split (h heads, d_k = d_model / h each); every op below works on all B · h
// heads at once. The mask [B, 1, Tq, Tk] broadcasts over the heads axis.
//
// Write it as a chain of the engine's ops (src/autograd/ops.h), not as loops over numbers: then the engine
// records the graph and backward() differentiates your chain for free. The ops you need:
//   matmul(a, b, transpose_a, transpose_b)    [..., n, k] · [..., k, m] → [..., n, m]  (transpose_b: b is [..., m, k])
//   scale(x, factor)                          factor · x
//   softmax(x, additive_mask)                 over the last axis, with the mask added first
// Q.size(3) is d_k.
//
// Check:  tools/exercise.sh attention_chain
//   feeds your function the Q, K, V of the library's attention module and compares your output with its
//   attend() (src/attention/multi_head.cpp, with the score of src/attention/scaled_dot.cpp) — the same chain, in
//   the library — and then ∂loss/∂x through both.
#include "autograd/ops.h"
#include "exercise.h"

namespace attnlab::exercises {

Tensor scaled_dot_product_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const Tensor& mask) {
  // TODO: scores, weights, output — three or four lines of ops.
  return Tensor::zeros({Q.size(0), Q.size(1), Q.size(2), V.size(3)});   // [B, h, Tq, d_v]
}

}  // namespace attnlab::exercises
