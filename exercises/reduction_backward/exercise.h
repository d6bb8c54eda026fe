// exercise.h — what the reduction_backward exercise asks for: exercise.cpp (yours) and answer.cpp define them,
// check.cpp checks them.
#pragma once

#include "tensor/tensor.h"

namespace attnlab::exercises {

// y = sum(x, axis) and y = mean(x, axis) (src/autograd/ops.h; keepdim = false): x's shape `x_shape`, the axis
// (negative counts from the end) and g = ∂loss/∂y, shaped x_shape without that axis ([1] for a rank-1 x)
// → ∂loss/∂x, shaped x_shape.
Tensor sum_backward(const Tensor& g, const Shape& x_shape, int axis);
Tensor mean_backward(const Tensor& g, const Shape& x_shape, int axis);

}  // namespace attnlab::exercises
