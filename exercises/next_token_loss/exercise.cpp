// Exercise next_token_loss (chapter gpt): the loss GPT is trained with — the shift by one.
//
// A decoder-only model reads a block b_0 … b_{T−1} of a text and, at every position i at once, gives scores z_i [V]
// for the token that comes next. The causal mask lets position i see b_0 … b_i only, so the answer it must give is
// b_{i+1} — the same block shifted by one (src/gpt/text_blocks.h, shift_by_one):
//
//   loss = 1/T · Σ_{i=0}^{T−1} −log softmax(z_i)[b_{i+1}]         −log softmax(z)[t] = log Σ_v e^(z_v) − z_t
//
// Subtract the row's largest score before exp (log Σ e^(z_v) = m + log Σ e^(z_v − m)), or a score of 1000 is inf.
// logits.size(0) is T, logits.size(1) is V, logits.data() the numbers, row after row; block has T + 1 ids.
//
// Check:  tools/exercise.sh next_token_loss
//   compares your loss with the library's cross_entropy (src/autograd/ops.h) of the logits against the block
//   shifted by one — what DecoderOnly::loss computes — on small blocks, then on a real model's logits.
#include <algorithm>
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

double next_token_loss(const Tensor& logits, const std::vector<int32_t>& block) {
  // TODO: the formula above.
  return 0;
}

}  // namespace attnlab::exercises
