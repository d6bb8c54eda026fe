// answer.cpp — the project's answer to the dropout_backward exercise. Try exercise.cpp first: the check tells you
// where you are wrong.
//
//   y_i = x_i · kept_i / (1 − p)   ⇒   ∂x_i = g_i · kept_i / (1 − p)
// The same mask as the forward: a dropped number passed nothing forward, so it gets no gradient back; a kept one
// was scaled by 1/(1 − p), so its gradient is too. The library's backward (src/autograd/ops/dropout.cpp) recomputes
// m_i = kept_i / (1 − p) from the forward's key and adds g_i · m_i into ∂x.
#include "exercise.h"

namespace attnlab::exercises {

Tensor dropout_backward(const Tensor& kept, const Tensor& g, real p) {
  const real keep_scale = 1 / (1 - p);                                       // 1/(1 − p), the survivors' scale
  Tensor dx = Tensor::zeros(g.shape());                                      // [...], ∂loss/∂x
  for (int64_t i = 0; i < g.numel(); ++i) {
    dx.data()[i] = g.data()[i] * kept.data()[i] * keep_scale;                // ∂x_i = g_i · kept_i / (1 − p)
  }
  return dx;
}

}  // namespace attnlab::exercises
