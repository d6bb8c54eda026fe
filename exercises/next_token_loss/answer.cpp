// answer.cpp — the project's answer to next_token_loss (exercise.cpp says what is asked). The library does the same
// in two steps: text_batch cuts targets = the block shifted by one (src/gpt/text_blocks.cpp), and the loss is the
// ordinary cross-entropy of logits and targets (DecoderOnly::loss, src/gpt/decoder_only.cpp).
#include <algorithm>
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

double next_token_loss(const Tensor& logits, const std::vector<int32_t>& block) {
  const int64_t T = logits.size(0), V = logits.size(1);
  double total = 0;
  for (int64_t i = 0; i < T; ++i) {
    const real* z = logits.data() + i * V;                       // position i's scores, having read b_0 … b_i
    const int32_t next = block[static_cast<size_t>(i + 1)];      // the token after b_i: the shift by one
    const double top = *std::max_element(z, z + V);
    double sum = 0;
    for (int64_t v = 0; v < V; ++v) sum += std::exp(double(z[v]) - top);
    total += top + std::log(sum) - double(z[next]);              // −log softmax(z_i)[b_{i+1}]
  }
  return total / static_cast<double>(T);
}

}  // namespace attnlab::exercises
