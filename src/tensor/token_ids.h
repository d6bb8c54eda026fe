// token_ids.h — integer token ids with a shape, e.g. a batch of sentences [B, T].
//
// Ids index rows of an embedding table and name the correct class in the loss; they are never differentiated,
// so they are a plain vector of int32 next to a Shape rather than a Tensor.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/shape.h"

namespace attnlab::inline ATTNLAB_PRECISION {

struct TokenIds {
  Shape shape;                  // e.g. [B, T]
  std::vector<int32_t> values;  // shape.numel() ids, row-major
};

}  // namespace attnlab::inline ATTNLAB_PRECISION
