// Exercise reduction_backward (chapter autograd): the backward passes of sum and mean along one axis.
//
// A reduction squeezes one axis away: the loss averages over positions, layer norm takes each row's mean, and
// every broadcast in the forward (a bias [d] added to [B, T, d]) is a sum in the backward. Here you write where
// the gradient of a sum and of a mean goes.
//
//   forward     y[o, k] = Σ_i x[o, i, k]               sum along the axis (i runs over its n numbers)
//               y[o, k] = (1/n) Σ_i x[o, i, k]         mean along the axis
//   backward    given g = ∂loss/∂y (one number per slice [o, ·, k]), find ∂loss/∂x[o, i, k] = …
//               Every x[o, i, k] of a slice moved that slice's y[o, k] — by how much?
//
// Shapes: seen around its axis, any x is a block [outer, n, inner]: outer = the product of the sizes before the
// axis, n = the axis' own size, inner = the product of the sizes after it; element (o, i, k) is at offset
// (o · n + i) · inner + k, and g's (o, k) at o · inner + k. For x [2, 3, 4]: axis 0 → [1, 2, 12],
// axis 1 → [2, 3, 4], axis 2 (or −1) → [6, 4, 1]. x_shape.normalize_axis(axis) turns −1 into the last axis,
// x_shape[a] is the size of axis a, x_shape.rank() the number of axes. Return ∂x shaped x_shape.
//
// Check:  tools/exercise.sh reduction_backward
//   check.cpp runs the library's sum(x, axis) and mean(x, axis) forward and backward with the same g, and compares
//   their ∂x with yours, number by number (sum first, then mean; the first case is x [2, 3, 4] along axis 1).
#include "exercise.h"

namespace attnlab::exercises {

Tensor sum_backward(const Tensor& g, const Shape& x_shape, int axis) {
  Tensor dx = Tensor::zeros(x_shape);                                        // x's shape, ∂loss/∂x
  // TODO: find outer, n and inner, then write ∂x[o, i, k] into dx.data() for every o, i and k.
  return dx;
}

Tensor mean_backward(const Tensor& g, const Shape& x_shape, int axis) {
  Tensor dx = Tensor::zeros(x_shape);                                        // x's shape, ∂loss/∂x
  // TODO: the mean is the sum times 1/n: start from sum_backward(g, x_shape, axis).
  return dx;
}

}  // namespace attnlab::exercises
