// exercise.h — what the softmax_backward exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include "tensor/tensor.h"

namespace attnlab::exercises {

// y = softmax(x) over the last axis and g = ∂loss/∂y, both [..., d] → ∂loss/∂x, [..., d].
Tensor softmax_backward(const Tensor& y, const Tensor& g);

}  // namespace attnlab::exercises
