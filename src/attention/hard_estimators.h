// hard_estimators.h — how hard attention draws its keys, and the two ways its W_Q and W_K learn where to look
// (hard.cpp says the idea; hard_reward.h what a draw is credited with).
//
//   reinforce   the score function:  term = −(1/N) [Σ_{b,h,t} A_bt log a_{bht, s} + λ_e Σ_b H_b]
//   gumbel_st   straight-through Gumbel-softmax: forward the one-hot row of s = argmax_j (z + g)_j, backward
//               the gradient of y = softmax((z + g) / τ)
// Every function here is plain: no state, the generator and the baseline handed in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "attention/hard_reward.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// ---- Drawing keys ----
// Per sentence, 1 with probability `probability` (it uses the expectation, no sample), else 0.
std::vector<uint8_t> expectation_sentences(int64_t B, double probability, Generator& gen);
// One key per row of a [B, h, Tq, Tk] drawn from the row; −1 for a row with no visible key and for every row of
// a sentence marked in `skip` (empty: none).
std::vector<int64_t> draw_keys(const Tensor& a, Generator& gen, const std::vector<uint8_t>& skip);
// The first key j with a_0 + … + a_j > u · Σ a (u uniform): a sample of the row a [Tk] (inverse CDF). −1 when no
// key is visible; a hidden key (a = 0) is never chosen.
int64_t draw(const real* row, int64_t Tk, Generator& gen);
// The same for a uniform number u ∈ [0, 1) drawn beforehand (so that rows weighed on several threads draw from
// numbers taken in one fixed order).
int64_t draw_at(const real* row, int64_t Tk, double u);
// The key of largest weight of every row of a [B, h, Tq, Tk] (the first of equal maxima); −1 for a row of 0s.
std::vector<int64_t> argmax_keys(const Tensor& a);
// Rows of 0 with a 1 at keys[row] (none where keys[row] = −1), shaped like a. A constant: no gradient.
Tensor one_hot(const Tensor& a, const std::vector<int64_t>& keys);
// [B, 1, 1, 1]: 1 for the sentences that use the expectation.
Tensor expectation_mask(const std::vector<uint8_t>& soft);
// The entropy H_b = −Σ a log a over every (head, query, key) of sentence b, [B], in the graph.
Tensor entropy_of(const Tensor& a);

// ---- gumbel_st (Jang et al. 2017). With g_ij = −log(−log u_ij) (noise, a constant):
//   gumbel_softmax:    y = softmax((z + g) / τ + mask)      [B, h, Tq, Tk], differentiable in z (the scores)
//   straight_through:  forward the one-hot row of keys[row] (argmax_j (z + g)_ij, a sample of softmax(z)), backward
//                      y's gradient as if the forward had been y: out = y + (one_hot − y), the bracket a constant.
Tensor gumbel_noise(const Shape& shape, Generator& gen);                       // g, one per score
Tensor gumbel_softmax(const Tensor& scores, const Tensor& additive_mask, const Tensor& noise, double temperature);
Tensor straight_through(const Tensor& soft, const std::vector<int64_t>& keys);

// ---- reinforce: what one forward's draws owe, once the batch's rewards are known ----
struct HardDraws {
  Tensor log_pi;               // [B, h, Tq]  log a_{i, s_i} (0 where nothing was drawn), in the graph; gumbel_st: none
  Tensor entropy;              // [B]         H[a], in the graph
  Tensor a;                    // [B, h, Tq, Tk]  the distribution, no graph (for hard_clip's norm)
  std::vector<int64_t> keys;   // s, one per (b, head, query); −1: not drawn
};
// −(1/N) [Σ A log π + λ_e Σ H], times hard_clip's factor: [1], or undefined when there is nothing to add (gumbel_st
// without an entropy bonus). Updates `baseline` (hard_reward.h). `who` names the module in errors.
Tensor reinforce_term(const HardDraws& draws, const Rewards& rewards, const AttentionConfig& config,
                      bool queries_are_targets, RewardBaseline& baseline, const std::string& who);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
