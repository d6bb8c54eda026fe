// answer.cpp — the project's answer to the attention_chain exercise. Try exercise.cpp first.
//
// The same chain runs in the library as MultiHeadAttention::attend() (src/attention/multi_head.cpp) with the
// score of ScaledDotAttention::score() (src/attention/scaled_dot.cpp), and dropout on the weights while training;
// the fused kernel that replaces it is kernels/scaled_dot_attention.cpp.
#include <cmath>

#include "autograd/ops.h"
#include "exercise.h"

namespace attnlab::exercises {

Tensor scaled_dot_product_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const Tensor& mask) {
  const int64_t d_k = Q.size(3);
  Tensor scores = matmul(Q, K, /*transpose_a=*/false, /*transpose_b=*/true);   // [B, h, Tq, Tk] = Q Kᵀ
  scores = scale(scores, 1 / std::sqrt(static_cast<real>(d_k)));               // / √d_k
  const Tensor weights = softmax(scores, mask);                                // [B, h, Tq, Tk], rows sum to 1
  return matmul(weights, V);                                                   // [B, h, Tq, d_v]
}

}  // namespace attnlab::exercises
