// answer.cpp — the project's answer to the cross_entropy_backward exercise. Try exercise.cpp first: the check
// names the usual slips (a sum for the mean, padding that leaks, ε spread over V − 1 classes, the sign).
//
//   log p_k = z_k − log Σ_j e^(z_j), so ∂(−log p_k)/∂z_c = p_c − [c = k], and with Σ_k q_k = 1:
//     ∂H/∂z_c = Σ_k q_k (p_c − [c = k]) = p_c − q_c,      q_c = (1 − ε)[c = t] + ε/V
//   The mean over the N kept positions and the chain rule add the factor g/N:  ∂z_c = g · (p_c − q_c) / N,
//   and a padding position, which is not in the loss, gets 0.
// The library's version (it saves log Σ e^z per row in the forward, so p_c = e^(z_c − lse) costs one exp) is the
// backward function in src/autograd/ops/cross_entropy.cpp.
#include <algorithm>
#include <cmath>
#include <vector>

#include "exercise.h"

namespace attnlab::exercises {

Tensor cross_entropy_backward(const Tensor& logits, const TokenIds& targets, real label_smoothing,
                              int32_t ignore_id, real g) {
  const real epsilon = label_smoothing;
  const int64_t rows = logits.shape().rows(), V = logits.shape().cols();
  Tensor dz = Tensor::zeros(logits.shape());                         // [..., V], ∂L/∂logits
  int64_t counted = 0;                                               // N: the positions that are not padding
  for (int64_t r = 0; r < rows; ++r) {
    if (targets.values[static_cast<size_t>(r)] != ignore_id) ++counted;
  }
  if (counted == 0) return dz;                                       // all padding: the loss is the constant 0
  const real g_over_n = g / static_cast<real>(counted);              // g · the mean's 1/N
  std::vector<real> p(static_cast<size_t>(V));                       // [V] e^(z_c − m), then p_c
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t t = targets.values[static_cast<size_t>(r)];
    if (t == ignore_id) continue;                                    // padding: no loss, no gradient
    const real* z = logits.data() + r * V;                           // [V]
    const real m = *std::max_element(z, z + V);                      // the max: e^(z_c − m) ≤ 1
    real sum_exp = 0;
    for (int64_t c = 0; c < V; ++c) sum_exp += p[c] = std::exp(z[c] - m);
    real* dzr = dz.data() + r * V;                                   // [V]
    for (int64_t c = 0; c < V; ++c) {
      const real q = (c == t ? 1 - epsilon : 0) + epsilon / static_cast<real>(V);   // q_c = (1 − ε)[c = t] + ε/V
      dzr[c] = g_over_n * (p[c] / sum_exp - q);                      // ∂z_c = g · (p_c − q_c) / N
    }
  }
  return dz;
}

}  // namespace attnlab::exercises
