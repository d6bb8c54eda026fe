// exercise.h — what the activation_backward exercise asks for: exercise.cpp (yours) and answer.cpp define them,
// check.cpp checks them.
#pragma once

#include "tensor/tensor.h"

namespace attnlab::exercises {

// y = max(x, 0): x and g = ∂loss/∂y, both [...] → ∂loss/∂x, [...].
Tensor relu_backward(const Tensor& x, const Tensor& g);

// y = x · Φ(x), Φ the standard normal CDF (GELU, the exact erf form): x and g = ∂loss/∂y → ∂loss/∂x.
Tensor gelu_backward(const Tensor& x, const Tensor& g);

// y = tanh(x): the forward's OUTPUT y and g = ∂loss/∂y → ∂loss/∂x (x is not given, as in the library).
Tensor tanh_backward(const Tensor& y, const Tensor& g);

}  // namespace attnlab::exercises
