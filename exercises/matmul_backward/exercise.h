// exercise.h — what the matmul_backward exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include "tensor/tensor.h"

namespace attnlab::exercises {

struct MatmulGradients {
  Tensor dx;  // ∂loss/∂x, shaped like x: [..., d_in]
  Tensor dW;  // ∂loss/∂W, shaped like W: [d_out, d_in]
};

// The forward y = x · Wᵀ of a Linear layer: x [..., d_in], W [d_out, d_in] (stored as PyTorch's
// nn.Linear.weight), and g = ∂loss/∂y [..., d_out] → ∂x and ∂W.
MatmulGradients matmul_backward(const Tensor& x, const Tensor& W, const Tensor& g);

}  // namespace attnlab::exercises
