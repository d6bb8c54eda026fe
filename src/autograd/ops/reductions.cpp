// reductions.cpp — sum and mean (of everything, or along one axis), cumulative sum, division by a sum.
//
//   forward                       backward (g = ∂loss/∂y)
//   y = Σ_i x_i          [1]      ∂x_i += g            (every x_i contributes with weight 1)
//   y = (1/n) Σ_i x_i    [1]      ∂x_i += g / n
#include "autograd/ops.h"

namespace attnlab::inline ATTNLAB_PRECISION {

Tensor sum(const Tensor& x) {
  Tensor y = Tensor::zeros({1});                                        // [1]
  y.data()[0] = x.matrix().sum();
  record(y, "sum", {x}, [x](TensorNode& out) {
    x.grad_matrix().array() += out.grad[0];                             // ∂(Σx)/∂x_i = 1
  });
  return y;
}

Tensor mean(const Tensor& x) {
  const real n = static_cast<real>(x.numel());
  Tensor y = Tensor::zeros({1});                                        // [1]
  y.data()[0] = x.matrix().sum() / n;
  record(y, "mean", {x}, [x, n](TensorNode& out) {
    x.grad_matrix().array() += out.grad[0] / n;                         // ∂(Σx/n)/∂x_i = 1/n
  });
  return y;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
