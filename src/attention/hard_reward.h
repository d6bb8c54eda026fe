// hard_reward.h — what hard attention's score function credits each sampled key with: the reward R, the baseline
// b it is compared with, and the advantage A = R − b (optionally divided by its spread over the batch).
//
// The estimator (hard.cpp) is, per sampled key s of query t in sentence b, the loss term −A_bt log a_{t, s}. It is
// unbiased exactly when E_s[A_bt ∇ log a_{t,s}] = E_s[(total reward) ∇ log a_{t,s}], which holds when
//   * R_bt holds every part of the loss that the sample can change. With hard_reward: sentence, R_b = Σ_u log p(y_u),
//     the whole sentence. With hard_reward: position, R_bt = Σ_{u ≥ t} γ^(u − t) log p(y_u): the decoder is causal,
//     so a key drawn for target position t cannot change log p(y_u) for u < t; with γ = 1 nothing is dropped
//     (unbiased), with γ < 1 the later words count less (biased towards the word's own likelihood, less noise);
//   * b does not depend on the sample itself (E[∇ log a] = 0 makes any such b vanish in expectation). A moving
//     average of earlier batches qualifies; so does the mean of the OTHER sentences of the batch (leave-one-out),
//     whose samples are drawn independently of this one. The batch mean including the sentence itself does not,
//     and tests/attention/f64_hard_estimators.cpp shows the bias it makes on an enumerable case.
//   * hard_normalize divides A by the batch's root mean square of A: a spread that depends on every sample, so
//     this variant is NOT unbiased; it keeps the sign of every advantage and bounds the term's size.
// Padded target positions get A = 0 (their samples change no loss: dropping them removes noise, not signal).
#pragma once

#include <cstdint>
#include <vector>

#include "attention/attention.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// The baseline's memory between batches: one moving average per target position (or one, per sentence).
struct RewardBaseline {
  std::vector<double> mean;       // b_t (hard_reward: position) or b (sentence: one entry)
  std::vector<uint8_t> started;   // b_t has seen a batch (the first batch sets it to its own mean)
};

// The advantages A [B, Tq] of a batch, Tq the queries of each sentence. `queries_are_targets` (decoder and cross
// uses): query t is target position t (Tq == rewards.positions), A = 0 where it is padding; otherwise (encoder) a
// query has no position in the target and takes its sentence's advantage. Updates the moving baseline AFTER using
// it, so no sentence is judged against a number its own reward moved.
std::vector<double> advantages(const Rewards& rewards, int64_t Tq, bool queries_are_targets,
                               const AttentionConfig& config, RewardBaseline& baseline);

// R [B, T]: the reward of each position under config (sentence: the sentence's sum in every real position).
std::vector<double> position_rewards(const Rewards& rewards, const AttentionConfig& config);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
