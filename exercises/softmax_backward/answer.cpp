// answer.cpp — the project's answer to the softmax_backward exercise. Try exercise.cpp first: the check tells you
// where you are wrong, and working the sum out yourself is the point.
//
//   ∂x_j = Σ_i g_i y_i (δ_ij − y_j) = g_j y_j − y_j Σ_i g_i y_i = y_j (g_j − Σ_i g_i y_i)
// The sum Σ_i g_i y_i is one number per row: computed once, the row then takes one pass.
// The library's version, parallel and vectorised, is the backward function in src/autograd/ops/softmax.cpp.
#include "exercise.h"

namespace attnlab::exercises {

Tensor softmax_backward(const Tensor& y, const Tensor& g) {
  const int64_t rows = y.shape().rows(), d = y.shape().cols();
  Tensor dx = Tensor::zeros(y.shape());                              // [..., d], ∂loss/∂x
  for (int64_t r = 0; r < rows; ++r) {
    const real* yr = y.data() + r * d;                               // y of this row, [d]
    const real* gr = g.data() + r * d;                               // ∂loss/∂y of this row, [d]
    real* dxr = dx.data() + r * d;                                   // [d]
    real g_dot_y = 0;                                                // Σ_i g_i y_i
    for (int64_t i = 0; i < d; ++i) g_dot_y += gr[i] * yr[i];
    for (int64_t j = 0; j < d; ++j) dxr[j] = yr[j] * (gr[j] - g_dot_y);   // ∂x_j = y_j (g_j − Σ_i g_i y_i)
  }
  return dx;
}

}  // namespace attnlab::exercises
