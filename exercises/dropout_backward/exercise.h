// exercise.h — what the dropout_backward exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include "tensor/tensor.h"

namespace attnlab::exercises {

// Inverted dropout's backward: the forward's keep mask `kept` (1 where x_i was kept, 0 where it was dropped), its
// drop probability p in [0, 1) and g = ∂loss/∂y, both [...] → ∂loss/∂x, shaped like g.
Tensor dropout_backward(const Tensor& kept, const Tensor& g, real p);

}  // namespace attnlab::exercises
