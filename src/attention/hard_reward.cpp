// hard_reward.cpp — hard attention's reward, baseline and advantage (hard_reward.h says which are unbiased).
//   sentence:  R_bt = Σ_u log p(y_bu)                         (every real position t of sentence b)
//   position:  R_bt = Σ_{u ≥ t} γ^(u − t) log p(y_bu)         (computed from the end: R_t = log p_t + γ R_{t+1})
//   moving:    b_t ← decay · b_t + (1 − decay) · mean_b R_bt  (after use; the first batch sets b_t to its mean)
//   others:    b_bt = mean_{b' ≠ b} R_b't                      (leave-one-out; the moving b_t if b is alone)
//   A_bt = R_bt − b_bt,  then with hard_normalize  A ← A / √(mean A²) over the batch's real positions
#include "attention/hard_reward.h"

#include <cmath>

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<double> position_rewards(const Rewards& rewards, const AttentionConfig& config) {
  const int64_t B = rewards.batch, T = rewards.positions;
  std::vector<double> R(static_cast<size_t>(B * T), 0.0);                      // [B, T]
  for (int64_t b = 0; b < B; ++b) {
    const double whole = rewards.sentence(b);
    double rest = 0;                                                          // Σ_{u > t} γ^(u − t − 1) log p_u
    for (int64_t t = T - 1; t >= 0; --t) {
      const size_t at = static_cast<size_t>(b * T + t);
      if (!rewards.real[at]) continue;
      rest = rewards.log_p[at] + config.hard_discount * rest;
      R[at] = config.hard_reward == HardReward::position ? rest : whole;
    }
  }
  return R;
}

namespace {

// b_bt for every real (b, t) of R [B, T], then the moving averages updated from this batch.
std::vector<double> baselines(const std::vector<double>& R, const Rewards& rewards, const AttentionConfig& config,
                              RewardBaseline& baseline) {
  const int64_t B = rewards.batch, T = rewards.positions;
  const bool per_position = config.hard_reward == HardReward::position;
  const size_t slots = per_position ? static_cast<size_t>(T) : 1;
  if (baseline.mean.size() < slots) baseline.mean.resize(slots, 0.0), baseline.started.resize(slots, 0);
  std::vector<double> total(slots, 0.0), count(slots, 0.0);                  // Σ_b R_bt and how many, per slot
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      const size_t at = static_cast<size_t>(b * T + t);
      if (!rewards.real[at]) continue;
      const size_t slot = per_position ? static_cast<size_t>(t) : 0;
      if (!per_position && t > 0 && rewards.real[at - 1]) continue;          // sentence: one R per sentence
      total[slot] += R[at];
      count[slot] += 1;
    }
  for (size_t slot = 0; slot < slots; ++slot) {                              // the first batch: its own mean
    if (!baseline.started[slot] && count[slot] > 0) baseline.mean[slot] = total[slot] / count[slot];
  }
  std::vector<double> b_of(R.size(), 0.0);                                   // [B, T]
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      const size_t at = static_cast<size_t>(b * T + t);
      if (!rewards.real[at]) continue;
      const size_t slot = per_position ? static_cast<size_t>(t) : 0;
      const bool others = config.hard_baseline == HardBaseline::others && count[slot] > 1;
      b_of[at] = others ? (total[slot] - R[at]) / (count[slot] - 1) : baseline.mean[slot];
    }
  const double decay = config.hard_baseline_decay;
  for (size_t slot = 0; slot < slots; ++slot) {
    if (count[slot] == 0) continue;
    const double batch_mean = total[slot] / count[slot];
    baseline.mean[slot] = baseline.started[slot] ? decay * baseline.mean[slot] + (1 - decay) * batch_mean : batch_mean;
    baseline.started[slot] = 1;
  }
  return b_of;
}

}  // namespace

std::vector<double> advantages(const Rewards& rewards, int64_t Tq, bool queries_are_targets,
                               const AttentionConfig& config, RewardBaseline& baseline) {
  const int64_t B = rewards.batch, T = rewards.positions;
  if (queries_are_targets ? Tq != T : config.hard_reward == HardReward::position) {
    throw Error("hard attention: hard_reward: position credits target position t's samples, but this attention has " +
                std::to_string(Tq) + " queries for " + std::to_string(T) + " target positions (use it in the "
                "decoder or cross-attention, or hard_reward: sentence)");
  }
  const std::vector<double> R = position_rewards(rewards, config);           // [B, T]
  const std::vector<double> b_of = baselines(R, rewards, config, baseline);  // [B, T]
  std::vector<double> A(static_cast<size_t>(B * Tq), 0.0);                   // [B, Tq]
  double squares = 0, count = 0;
  for (int64_t b = 0; b < B; ++b) {
    int64_t first_real = 0;                                                  // the sentence's R: at its first real t
    while (first_real < T - 1 && !rewards.real[static_cast<size_t>(b * T + first_real)]) ++first_real;
    for (int64_t t = 0; t < Tq; ++t) {
      const size_t from = static_cast<size_t>(b * T + (queries_are_targets ? t : first_real));
      if (!rewards.real[from]) continue;                                     // padding: A = 0
      const double a = R[from] - b_of[from];
      A[static_cast<size_t>(b * Tq + t)] = a;
      squares += a * a, count += 1;
    }
  }
  if (config.hard_normalize && squares > 0) {
    const double spread = std::sqrt(squares / count);
    for (double& a : A) a /= spread;
  }
  return A;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
