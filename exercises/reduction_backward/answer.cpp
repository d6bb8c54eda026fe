// answer.cpp — the project's answer to the reduction_backward exercise. Try exercise.cpp first: the check tells you
// where you are wrong.
//
//   y[o, k] = Σ_i x[o, i, k]         ⇒   ∂x[o, i, k] = g[o, k]        every number of a slice gets its slice's g
//   y[o, k] = (1/n) Σ_i x[o, i, k]   ⇒   ∂x[o, i, k] = g[o, k] / n    the same, times 1/n
// So a reduction's backward broadcasts g back along the axis it removed (as broadcasting's backward is a sum).
// The library does both in one loop, weighted_sum_along() in src/autograd/ops/reductions.cpp, whose opening comment
// explains the [outer, n, inner] view.
#include "exercise.h"

namespace attnlab::exercises {

Tensor sum_backward(const Tensor& g, const Shape& x_shape, int axis) {
  const int a = x_shape.normalize_axis(axis);                                // −1 → the last axis
  int64_t outer = 1, inner = 1;
  for (int before = 0; before < a; ++before) outer *= x_shape[before];       // the sizes before the axis
  for (int after = a + 1; after < x_shape.rank(); ++after) inner *= x_shape[after];   // the sizes after it
  const int64_t n = x_shape[a];                                              // the axis summed over
  Tensor dx = Tensor::zeros(x_shape);                                        // x's shape, as [outer, n, inner]
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < inner; ++k) dx.data()[(o * n + i) * inner + k] = g.data()[o * inner + k];
  return dx;
}

Tensor mean_backward(const Tensor& g, const Shape& x_shape, int axis) {
  const int64_t n = x_shape[axis];                                           // the size of the axis averaged over
  Tensor dx = sum_backward(g, x_shape, axis);                                // g, spread along the axis
  for (real& v : dx.values()) v /= static_cast<real>(n);                     // ∂(Σ_i x_i / n)/∂x_i = 1/n
  return dx;
}

}  // namespace attnlab::exercises
