// exercise.h — what the cross_entropy_backward exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include <cstdint>

#include "tensor/tensor.h"
#include "tensor/token_ids.h"

namespace attnlab::exercises {

// The loss y = cross_entropy(logits, targets, label_smoothing, ignore_id) of src/autograd/ops.h — logits
// [..., V], targets the logits' shape without the last axis — and g = ∂L/∂y, the one number the loss receives
// → ∂L/∂logits, [..., V].
Tensor cross_entropy_backward(const Tensor& logits, const TokenIds& targets, real label_smoothing,
                              int32_t ignore_id, real g);

}  // namespace attnlab::exercises
