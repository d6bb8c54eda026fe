// exercise.h — what the next_token_loss exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace attnlab::exercises {

// A language model's loss on one block of a text (src/gpt/text_blocks.h, src/gpt/decoder_only.h).
// block: its T + 1 token ids b_0 … b_T; logits [T, V]: the model's scores at positions 0 … T − 1, where it has read
// b_0 … b_i. → the mean over the T positions of −log softmax(logits_i)[b_{i+1}]: each position is scored on the
// token that comes after it (no padding, no label smoothing).
double next_token_loss(const Tensor& logits, const std::vector<int32_t>& block);

}  // namespace attnlab::exercises
