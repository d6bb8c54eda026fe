// token_ids.h — integer token ids with a shape, e.g. a batch of sentences [B, T].
//
// Ids index rows of an embedding table and name the correct class in the loss; they are never differentiated,
// so they are a plain vector of int32 next to a Shape rather than a Tensor.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/shape.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Fixed special token ids, the same for every tokenizer attnlab makes (they sit here, at the bottom, because
// the data, the model, decoding and the loss all need them).
constexpr int32_t pad_id = 0;  // padding: ignored by the loss and masked out of attention
constexpr int32_t bos_id = 1;  // beginning of sentence: the decoder's first input
constexpr int32_t eos_id = 2;  // end of sentence: the decoder's last target
constexpr int32_t unk_id = 3;  // a token the vocabulary does not have

struct TokenIds {
  Shape shape;                  // e.g. [B, T]
  std::vector<int32_t> values;  // shape.numel() ids, row-major
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
