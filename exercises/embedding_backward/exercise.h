// exercise.h — what the embedding_backward exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include <cstdint>

#include "tensor/tensor.h"
#include "tensor/token_ids.h"

namespace attnlab::exercises {

// The Transformer's token embedding y[p, :] = √d_model · W[ids[p], :], W [V, d_model], ids of any shape: given
// g = ∂loss/∂y [ids.shape..., d_model] and V = vocab_size → ∂loss/∂W, [V, d_model].
Tensor embedding_backward(const TokenIds& ids, const Tensor& g, int64_t vocab_size);

}  // namespace attnlab::exercises
