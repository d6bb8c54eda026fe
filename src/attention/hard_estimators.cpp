// hard_estimators.cpp — drawing hard attention's keys, Gumbel-softmax straight-through, and the REINFORCE term
// (hard_estimators.h lists them; hard.cpp says when each is used).
//   term = −(1/N) [Σ_{b,h,t} A_bt log a_{bht, s} + λ_e Σ_b H_b]                        A = R − b (hard_reward.h)
//   hard_clip: g_ij = ∂term/∂z_ij = −(A/N)(δ_{j,s} − a_ij) + (λ_e/N) a_ij (log a_ij + H_i),
//              term ← term · min(1, c / ‖g‖)
#include "attention/hard_estimators.h"

#include <algorithm>
#include <cmath>

#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<uint8_t> expectation_sentences(int64_t B, double probability, Generator& gen) {
  std::vector<uint8_t> soft(static_cast<size_t>(B), 0);
  for (auto& s : soft) s = probability > 0 && gen.uniform() < probability;
  return soft;
}

std::vector<int64_t> draw_keys(const Tensor& a, Generator& gen, const std::vector<uint8_t>& skip) {
  const int64_t Tk = a.size(3), rows = a.numel() / Tk, rows_per_sentence = rows / a.size(0);
  std::vector<int64_t> keys(static_cast<size_t>(rows), -1);
  for (int64_t r = 0; r < rows; ++r) {
    if (!skip.empty() && skip[static_cast<size_t>(r / rows_per_sentence)]) continue;
    keys[static_cast<size_t>(r)] = draw(a.data() + r * Tk, Tk, gen);
  }
  return keys;
}

int64_t draw(const real* row, int64_t Tk, Generator& gen) {
  real total = 0;
  for (int64_t j = 0; j < Tk; ++j) total += row[j];
  return total > 0 ? draw_at(row, Tk, gen.uniform()) : -1;
}

int64_t draw_at(const real* row, int64_t Tk, double u01) {
  real total = 0;
  for (int64_t j = 0; j < Tk; ++j) total += row[j];
  if (!(total > 0)) return -1;
  const double u = u01 * total;
  double running = 0;
  int64_t s = -1;
  for (int64_t j = 0; j < Tk; ++j) {
    if (row[j] == 0) continue;
    s = j;                                                                   // the last visible one, if rounding
    running += row[j];                                                       // leaves u at the total
    if (u < running) break;
  }
  return s;
}

std::vector<int64_t> argmax_keys(const Tensor& a) {
  const int64_t Tk = a.size(3), rows = a.numel() / Tk;
  std::vector<int64_t> keys(static_cast<size_t>(rows), -1);
  for (int64_t r = 0; r < rows; ++r) {
    const real* row = a.data() + r * Tk;
    const int64_t best = std::max_element(row, row + Tk) - row;
    if (row[best] > 0) keys[static_cast<size_t>(r)] = best;
  }
  return keys;
}

Tensor one_hot(const Tensor& a, const std::vector<int64_t>& keys) {
  const int64_t Tk = a.size(3);
  Tensor rows = Tensor::zeros(a.shape());                                    // [B, h, Tq, Tk]
  for (size_t r = 0; r < keys.size(); ++r) {
    if (keys[r] >= 0) rows.data()[static_cast<int64_t>(r) * Tk + keys[r]] = 1;
  }
  return rows;
}

Tensor expectation_mask(const std::vector<uint8_t>& soft) {
  Tensor mask = Tensor::zeros({static_cast<int64_t>(soft.size()), 1, 1, 1});  // [B, 1, 1, 1]
  for (size_t b = 0; b < soft.size(); ++b) mask.data()[b] = soft[b];
  return mask;
}

// A hidden key (a = 0 exactly) adds 0 · log 1 = 0.
Tensor entropy_of(const Tensor& a) {
  const int64_t B = a.size(0);
  Tensor zero = Tensor::zeros(a.shape());                                    // [B, h, Tq, Tk]  1 where a = 0
  for (int64_t n = 0; n < a.numel(); ++n) zero.data()[n] = a.data()[n] == 0 ? 1 : 0;
  Tensor a_log_a = mul(a, log(add(a, zero)));                                // [B, h, Tq, Tk]
  return scale(sum(reshape(a_log_a, {B, a.numel() / B}), 1), -1);            // [B]
}

Tensor gumbel_noise(const Shape& shape, Generator& gen) {
  Tensor noise = Tensor::zeros(shape);                                       // [B, h, Tq, Tk]  g = −log(−log u)
  for (int64_t n = 0; n < noise.numel(); ++n) {
    const double u = std::max(gen.uniform(), 1e-300);
    noise.data()[n] = static_cast<real>(-std::log(-std::log(u)));
  }
  return noise;
}

Tensor gumbel_softmax(const Tensor& scores, const Tensor& additive_mask, const Tensor& noise, double temperature) {
  Tensor perturbed = add(scores, noise);                                     // [B, h, Tq, Tk]  z + g
  return softmax(scale(perturbed, static_cast<real>(1 / temperature)), additive_mask);   // [B, h, Tq, Tk] y
}

Tensor straight_through(const Tensor& soft, const std::vector<int64_t>& keys) {
  const int64_t Tk = soft.size(3);
  Tensor jump = Tensor::zeros(soft.shape());                                 // [B, h, Tq, Tk]  one_hot − y, constant
  for (size_t r = 0; r < keys.size(); ++r) {
    real* row = jump.data() + static_cast<int64_t>(r) * Tk;
    const real* y = soft.data() + static_cast<int64_t>(r) * Tk;
    for (int64_t j = 0; j < Tk; ++j) row[j] = (j == keys[r] ? real(1) : real(0)) - y[j];
  }
  return add(soft, jump);                                                    // [B, h, Tq, Tk]  forward one-hot
}

namespace {

// ‖∂term/∂z‖ for hard_clip (the top of the file): per drawn row (b, head, t) with key s and H_i = −Σ a log a;
// the rows not drawn have only the entropy's part.
double score_gradient_norm(const HardDraws& draws, const Tensor& advantage, double N, double entropy_weight) {
  const int64_t Tk = draws.a.size(3), rows = draws.a.numel() / Tk;
  double squares = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const real* a = draws.a.data() + r * Tk;                                 // [Tk]
    double H = 0;
    for (int64_t j = 0; j < Tk; ++j) if (a[j] > 0) H -= a[j] * std::log(double(a[j]));
    const int64_t s = draws.keys[static_cast<size_t>(r)];
    const double A = s >= 0 ? double(advantage.data()[r]) : 0.0;
    for (int64_t j = 0; j < Tk; ++j) {
      if (a[j] == 0) continue;                                               // hidden: no gradient
      const double g = -A / N * ((j == s ? 1.0 : 0.0) - a[j]) +
                       entropy_weight / N * a[j] * (std::log(double(a[j])) + H);
      squares += g * g;
    }
  }
  return std::sqrt(squares);
}

}  // namespace

Tensor reinforce_term(const HardDraws& draws, const Rewards& rewards, const AttentionConfig& config,
                      bool queries_are_targets, RewardBaseline& baseline, const std::string& who) {
  if (!draws.log_pi.defined() && config.hard_entropy == 0) return Tensor();   // gumbel_st without a bonus
  const int64_t B = draws.entropy.size(0);
  if (rewards.batch != B || !(rewards.tokens > 0)) {
    throw Error("hard attention " + who + ": rewards for " + std::to_string(rewards.batch) + " sentences for a " +
                "batch of " + std::to_string(B) + " (and " + std::to_string(rewards.tokens) + " tokens)");
  }
  const double N = rewards.tokens;
  Tensor term = scale(sum(draws.entropy), static_cast<real>(-config.hard_entropy / N));   // [1]  −(λ_e/N) Σ H
  if (!draws.log_pi.defined()) return term;                                   // gumbel_st: the bonus alone
  const int64_t h = draws.log_pi.size(1), Tq = draws.log_pi.size(2);
  const std::vector<double> A = advantages(rewards, Tq, queries_are_targets, config, baseline);   // [B, Tq]
  Tensor advantage = Tensor::zeros({B, h, Tq});                              // [B, h, Tq]  A_bt, a constant
  for (int64_t b = 0; b < B; ++b)
    for (int64_t head = 0; head < h; ++head)
      for (int64_t t = 0; t < Tq; ++t)
        advantage.data()[(b * h + head) * Tq + t] = static_cast<real>(A[static_cast<size_t>(b * Tq + t)]);
  Tensor reinforce = sum(mul(advantage, draws.log_pi));                      // [1]  Σ A log π
  term = add(scale(reinforce, static_cast<real>(-1 / N)), term);             // −(1/N) Σ A log π − (λ_e/N) Σ H
  if (config.hard_clip > 0) {
    const double norm = score_gradient_norm(draws, advantage, N, config.hard_entropy);
    if (norm > config.hard_clip) term = scale(term, static_cast<real>(config.hard_clip / norm));
  }
  return term;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
