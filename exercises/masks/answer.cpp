// answer.cpp — the project's answer to the masks exercise. Try exercise.cpp first.
//
// The library splits this in two: make_padding_mask (src/model/masks.cpp) records which keys are real and
// whether the mask is causal, and AttentionMask::allowed / additive (src/attention/mask.cpp) apply the rule —
// with a window too, for the attention kinds that have one — and write exactly −∞ where a key is hidden.
#include <limits>

#include "exercise.h"

namespace attnlab::exercises {

Tensor attention_mask(const TokenIds& keys, int64_t query_len, bool causal) {
  const real minus_infinity = -std::numeric_limits<real>::infinity();
  const int64_t B = keys.shape[0], Tk = keys.shape[1];
  Tensor mask = Tensor::zeros({B, 1, query_len, Tk});                // [B, 1, Tq, Tk]
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t i = 0; i < query_len; ++i) {
      for (int64_t j = 0; j < Tk; ++j) {
        const bool padding = keys.values[static_cast<size_t>(b * Tk + j)] == pad_id;   // key j is padding
        const bool future = causal && j > i;                                          // key j comes after query i
        if (padding || future) mask.data()[(b * query_len + i) * Tk + j] = minus_infinity;
      }
    }
  }
  return mask;
}

}  // namespace attnlab::exercises
