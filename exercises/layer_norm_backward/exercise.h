// exercise.h — what the layer_norm_backward exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include "tensor/tensor.h"

namespace attnlab::exercises {

struct LayerNormGradients {
  Tensor dx;      // ∂loss/∂x, shaped like x: [..., d]
  Tensor dgamma;  // ∂loss/∂γ, [d]
  Tensor dbeta;   // ∂loss/∂β, [d]
};

// The forward's input x [..., d] and gain γ [d], its ε, and g = ∂loss/∂y [..., d] → the three gradients.
LayerNormGradients layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& g, real eps);

}  // namespace attnlab::exercises
