// no_repeat_ngram.h — the repetition guard: no n-gram of length N appears twice in an output.
//
// A weak model, or beam search on a model unsure of a rare word, can fall into a loop: "a naked naked naked suit".
// The guard (fairseq's --no-repeat-ngram-size, from Paulus et al. 2018, "A deep reinforced model for abstractive
// summarization") forbids, at every step, each token v that would complete an n-gram the output already holds:
//
//   with y_1 … y_t generated so far and N = decode.no_repeat_ngram,
//   v is banned at step t + 1  ⇔  for some i ≤ t − N + 1:  (y_i, …, y_{i+N−2}) = (y_{t−N+2}, …, y_t)  and  y_{i+N−1} = v
//
// i.e. the last N − 1 tokens have been seen before, and v is what followed them then. N = 1 bans every token
// already output; N = 0 turns the guard off and decoding is exactly what it was without it. Only generated tokens
// count (not bos), and eos is never banned: it is never part of an output, so a guarded output can always end.
// A banned token's log-probability becomes −∞ before the argmax (greedy.cpp) or before the candidates are
// ranked (beam_search.cpp), so greedy, the cached greedy and beam search all ban the same tokens.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// The tokens that may not follow `output` (the generated tokens so far, without bos) under the guard of order n,
// each once, in the order their n-grams first occur. Empty when n ≤ 0 or the output is shorter than n − 1 tokens.
std::vector<int32_t> banned_next_tokens(const std::vector<int32_t>& output, int64_t n);

// Sets the banned tokens' entries of one row of logits (or log-probabilities) [V] to −∞.
template <typename Number>
void ban_tokens(Number* row, const std::vector<int32_t>& banned);

// Does any n-gram of length n occur twice in `tokens`? (What the guard promises for n ≥ 1; the tests ask it.)
bool has_repeated_ngram(const std::vector<int32_t>& tokens, int64_t n);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
