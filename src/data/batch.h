// batch.h — one training batch: padded source, decoder input and targets.
//
// For a pair (source x, target y) the decoder is fed  tgt_in  = [bos, y_1, …, y_m]
// and must predict                                   targets = [y_1, …, y_m, eos]
// (teacher forcing: position t sees the true y_<t and predicts y_t). Shorter sentences are padded with pad_id
// up to the longest in the batch; the loss ignores pad targets and attention masks pad keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tensor/token_ids.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct Batch {
  TokenIds src;                 // [B, S]
  TokenIds tgt_in;              // [B, T]  bos + target
  TokenIds targets;             // [B, T]  target + eos
  int64_t src_tokens = 0;       // real (non-pad) tokens, for tokens/s
  int64_t tgt_tokens = 0;
  std::vector<size_t> indices;  // which pairs of the corpus, in order
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
