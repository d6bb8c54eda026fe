// exercise.h — what the masks exercise asks for: exercise.cpp (yours) and answer.cpp define it, check.cpp
// checks it.
#pragma once

#include <cstdint>

#include "tensor/tensor.h"
#include "tensor/token_ids.h"

namespace attnlab::exercises {

// keys [B, Tk]: the token ids attended to (pad_id for padding); query_len = Tq; causal: query i may see only
// keys j ≤ i → the additive mask [B, 1, Tq, Tk]: 0 where query i of sentence b may see key j, −∞ where not.
Tensor attention_mask(const TokenIds& keys, int64_t query_len, bool causal);

}  // namespace attnlab::exercises
