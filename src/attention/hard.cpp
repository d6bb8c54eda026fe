// hard.cpp — hard (stochastic) attention (Xu et al. 2015, "Show, Attend and Tell", §4.1): each query takes the
// value of ONE key, chosen at random from its attention distribution, and learns where to look by REINFORCE or by
// a Gumbel-softmax relaxation.
//
// The idea. Soft attention mixes every value: out_i = Σ_j a_ij v_j. Hard attention picks one:
//     a_i· = softmax(q_i K_hᵀ / √d_k + mask)          the distribution over keys, per head (as scaled_dot)
//     s_i ~ Categorical(a_i·)                          while training: a sample, one key per query and head
//     out_i = v_{s_i}                                  then heads merged and W_O, as scaled_dot
// The sample is a discrete choice: the loss has no gradient with respect to it, so W_Q and W_K (which make a)
// get nothing from backpropagation. Two ways to teach them (hard_estimator):
//
// reinforce — Xu et al. maximise a lower bound of log p(y) whose gradient is, per sentence,
//     ∂/∂W [log p(y | s)]  +  λ_r (log p(y | s) − b) · ∂/∂W log p(s | a)  +  λ_e ∂/∂W H[a]
// — the score-function estimator: sampled keys that led to a good translation (reward above the baseline b) are
// made likelier, the others less likely. Written as a loss to minimise, next to the usual −log p(y | s):
//     − Σ_{b,t} A_bt · log π_bt(s) − λ_e H         log π_bt = Σ over heads of log a_{t, s_t},  A = R − b constant
// Its expectation over s has the same gradient as E_s[−log p(y | s)]: ∇ E[ℓ(s)] = E[∇ℓ(s) + ℓ(s) ∇ log π(s)],
// R = −ℓ; b may be any number that does not depend on this sample (E[∇ log π] = 0). Mind the sign: −A, not +A —
// with the other sign good samples become rarer (tests/attention/f64_hard_estimators.cpp pins it).
// What R and b are — the sentence's reward or each position's, a moving or a leave-one-out baseline, normalised
// or not — is hard_reward.h's business (hard_reward, hard_discount, hard_baseline, hard_baseline_decay,
// hard_normalize; it says which variants are unbiased). hard_clip bounds the term's gradient at the scores,
//     g_ij = ∂term/∂z_ij = −(A/N)(δ_{j,s} − a_ij) + (λ_e/N) a_ij (log a_ij + H_i),   term ← term · min(1, c / ‖g‖)
// (a constant factor, computed in forward), so that the noisy term cannot dominate train.clip_norm's global norm
// and scale the task's gradient down with it.
//
// gumbel_st — Gumbel-softmax straight-through (Jang et al. 2017): with g_ij = −log(−log u_ij), u uniform,
//     s_i = argmax_j (z_ij + g_ij)                     exactly a sample of Categorical(a_i·) (the Gumbel-max trick)
//     y_i = softmax((z_i + g_i) / τ)                   a relaxed, differentiable one-hot
//     out_i = (one_hot(s_i) + y_i − stop_gradient(y_i)) V     forward: v_{s_i}; backward: y's gradient
// The forward is the same sample as reinforce; the backward pretends it was y, which is biased (y ≠ one-hot) but has
// far less noise: W_Q and W_K get a gradient from the task's loss itself, with no reward. τ is annealed:
// τ = max(hard_temperature_min, hard_temperature · e^(−hard_temperature_decay · n)), n = this module's training passes.
//
// Xu et al.'s other two devices, each a key: hard_entropy (λ_e, the bonus −λ_e H[a] that keeps rows from
// collapsing early) and hard_expectation (with this probability a sentence uses the expectation Σ_j a_ij v_j, soft
// attention, instead of a sample; Xu used 0.5). At evaluation (hard_eval): the argmax key, a sample (this module's
// own generator, seeded 1), or the expectation.
//
// How the reward gets here. forward() samples and keeps log π [B, h, Tq] and H per sentence (in the graph). The
// model, once it knows each target token's log-likelihood, calls score_function_loss(rewards), which returns the
// term above divided by the target tokens N (as the loss is), for the trainer to add to the loss.
// Caveats. The baselines and the temperature's pass count live in the module and are not saved in checkpoints (a
// resumed run starts them again). model.dropout does not fall on hard attention's weights (dropping a one-hot row
// would drop the whole value). The reward is measured on the training pass, dropout included — or, with
// hard_clean_reward, on a second pass without dropout that replays the keys drawn (replay(), Seq2Seq::loss): R is
// then log p(y | s) of the model itself, not of one dropout mask, while the loss's own gradient keeps dropout.
//
// The maps show the distribution a (what the key is drawn from), never the one-hot row: the recorder gets a, and
// the key chosen is traced as "chosen" (the neuron view's chosen_key marks it on top of a).
// Paths: the paper's chain only (model.path: fused runs it too).
#include <algorithm>
#include <cmath>
#include <limits>

#include "attention/attention.h"
#include "attention/hard_reward.h"
#include "autograd/ops.h"
#include "nn/layers.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

Tensor gumbel_softmax(const Tensor& scores, const Tensor& additive_mask, const Tensor& noise, double temperature) {
  Tensor perturbed = add(scores, noise);                                    // [B, h, Tq, Tk]  z + g
  return softmax(scale(perturbed, static_cast<real>(1 / temperature)), additive_mask);  // [B, h, Tq, Tk] y
}

Tensor straight_through(const Tensor& soft, const std::vector<int64_t>& keys) {
  const int64_t Tk = soft.size(3);
  Tensor jump = Tensor::zeros(soft.shape());                                // [B, h, Tq, Tk]  one_hot − y, constant
  for (size_t r = 0; r < keys.size(); ++r) {
    real* row = jump.data() + static_cast<int64_t>(r) * Tk;
    const real* y = soft.data() + static_cast<int64_t>(r) * Tk;
    for (int64_t j = 0; j < Tk; ++j) row[j] = (j == keys[r] ? real(1) : real(0)) - y[j];
  }
  return add(soft, jump);                                                   // [B, h, Tq, Tk]  forward one-hot
}

namespace {

class HardAttention : public Attention {
 public:
  HardAttention(const AttentionConfig& c, AttentionUse use, int64_t d_model, int64_t heads, Generator& init)
      : q_proj(register_module("q_proj", std::make_unique<Linear>(d_model, d_model, init))),
        k_proj(register_module("k_proj", std::make_unique<Linear>(d_model, d_model, init))),
        v_proj(register_module("v_proj", std::make_unique<Linear>(d_model, d_model, init))),
        out_proj(register_module("out_proj", std::make_unique<Linear>(d_model, d_model, init))),
        config_(c),
        queries_are_targets_(use != AttentionUse::encoder_self),
        heads_(heads) {}

  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override {
    Tensor Q = split_heads(q_proj.forward(x), heads_);                      // [B, h, Tq, d_k]
    ctx.trace(*this, "q", Q);
    Tensor K = split_heads(k_proj.forward(memory), heads_);                 // [B, h, Tk, d_k]
    ctx.trace(*this, "k", K);
    Tensor V = split_heads(v_proj.forward(memory), heads_);                 // [B, h, Tk, d_k]
    ctx.trace(*this, "v", V);
    const Tensor additive_mask = mask.additive(config_);                    // [B, 1, Tq, Tk], 0 or −∞
    Tensor scores = matmul(Q, K, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, h, Tq, Tk] = Q Kᵀ
    if (config_.scale) scores = scale(scores, score_scale(Q.size(3)));      // [B, h, Tq, Tk] / √d_k
    ctx.trace(*this, "scores", scores, additive_mask);
    Tensor a = softmax(scores, additive_mask);                              // [B, h, Tq, Tk], the distribution
    ctx.trace(*this, "weights", a);
    if (ctx.recorder) ctx.recorder->record(name, a);                        // the maps show a, not the choice

    Tensor chosen;                                                          // [B, h, Tq, Tk], what mixes the values
    if (ctx.replay_samples) {
      chosen = replay(a);                                                   // the keys of the training pass
    } else if (ctx.training) {
      chosen = config_.hard_estimator == HardEstimator::gumbel_st ? relax(scores, additive_mask, a, ctx) : sample(a, ctx);
    } else if (config_.hard_eval == HardEval::expectation) {
      chosen = a;                                                           // Σ_j a_ij v_j, as soft attention
    } else if (config_.hard_eval == HardEval::sample) {
      chosen = one_hot(a, draw_keys(a, ctx.generator ? *ctx.generator : eval_generator_, {}));
    } else {
      chosen = one_hot(a, argmax_keys(a));                                  // the likeliest key, a constant
    }
    ctx.trace(*this, "chosen", chosen);
    Tensor context = matmul(chosen, V);                                     // [B, h, Tq, d_k]  v_{s_i}
    ctx.trace(*this, "context", context);
    Tensor out = out_proj.forward(merge_heads(context));                    // [B, Tq, d_model]
    ctx.trace(out_proj, out);
    return out;
  }

  // −(1/N) [Σ_{b,h,t} A_bt log a_{bht, s} + λ_e Σ_b H_b], times hard_clip's factor (the file's opening comment).
  Tensor score_function_loss(const Rewards& rewards) override {
    if (!entropy_.defined()) return Tensor();                               // no training pass since the last call
    if (!log_pi_.defined() && config_.hard_entropy == 0) {                  // gumbel_st without a bonus: nothing
      entropy_ = Tensor();
      return Tensor();
    }
    const int64_t B = entropy_.size(0);
    if (rewards.batch != B || !(rewards.tokens > 0)) {
      throw Error("hard attention " + name + ": rewards for " + std::to_string(rewards.batch) +
                  " sentences for a batch of " + std::to_string(B) + " (and " + std::to_string(rewards.tokens) +
                  " tokens)");
    }
    const double N = rewards.tokens;
    Tensor term = scale(sum(entropy_), static_cast<real>(-config_.hard_entropy / N));   // [1]  −(λ_e/N) Σ H
    if (log_pi_.defined()) {                                                 // reinforce: the score function
      const int64_t h = log_pi_.size(1), Tq = log_pi_.size(2);
      const std::vector<double> A = advantages(rewards, Tq, queries_are_targets_, config_, baseline_);  // [B, Tq]
      Tensor advantage = Tensor::zeros({B, h, Tq});                          // [B, h, Tq]  A_bt, a constant
      for (int64_t b = 0; b < B; ++b)
        for (int64_t head = 0; head < h; ++head)
          for (int64_t t = 0; t < Tq; ++t) advantage.data()[(b * h + head) * Tq + t] = static_cast<real>(A[static_cast<size_t>(b * Tq + t)]);
      Tensor reinforce = sum(mul(advantage, log_pi_));                       // [1]  Σ A log π
      term = add(scale(reinforce, static_cast<real>(-1 / N)), term);         // −(1/N) Σ A log π − (λ_e/N) Σ H
      if (config_.hard_clip > 0) {
        const double norm = score_gradient_norm(advantage, N);
        if (norm > config_.hard_clip) term = scale(term, static_cast<real>(config_.hard_clip / norm));
      }
    }
    log_pi_ = Tensor();
    entropy_ = Tensor();
    a_ = Tensor();
    return term;
  }

  // Incremental decoding (evaluation only): the cached keys' distribution, then its argmax, a sample or the mix.
  AttentionCache start_self_cache(int64_t batch, int64_t capacity) override {
    const int64_t d_k = q_proj.weight.size(0) / heads_;
    return make_kv_cache(batch, heads_, capacity, d_k, d_k, config_);
  }
  AttentionCache start_cross_cache(const Tensor& memory, const std::vector<uint8_t>& memory_is_real) override {
    return make_kv_cache(split_heads(k_proj.forward(memory), heads_),         // [B, h, Tk, d_k]
                         split_heads(v_proj.forward(memory), heads_), memory_is_real);
  }
  Tensor step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) override {
    Tensor Q = split_heads(q_proj.forward(x), heads_);                       // [B, h, 1, d_k]
    if (cache.self) {
      append_key(cache, split_heads(k_proj.forward(x), heads_),              // k_t, v_t: [B, h, 1, d_k]
                 split_heads(v_proj.forward(x), heads_), x_is_real);
    }
    const int64_t d_k = Q.size(3);
    const real factor = config_.scale ? score_scale(d_k) : real(1);
    Tensor context = attend_cached(
        cache, config_,
        [&](int64_t row, const real* k) { return dot_product(Q.data() + row * d_k, k, d_k) * factor; },
        [&](int64_t, int64_t, std::vector<real>& a) {
          softmax_in_place(a);
          if (config_.hard_eval == HardEval::expectation) return;
          auto pick = std::max_element(a.begin(), a.end());                 // the first of equal maxima, as forward
          if (config_.hard_eval == HardEval::sample) pick = a.begin() + draw(a.data(), int64_t(a.size()), eval_generator_);
          const bool any = pick != a.end() && *pick > 0;
          for (auto w = a.begin(); w != a.end(); ++w) *w = (any && w == pick) ? real(1) : real(0);
        });                                                                  // [B, h, 1, d_k]
    ++cache.position;
    return out_proj.forward(merge_heads(context));                           // [B, 1, d_model]
  }

  Linear& q_proj;
  Linear& k_proj;
  Linear& v_proj;
  Linear& out_proj;

 private:
  // Per sentence, 1 with probability hard_expectation (it uses the expectation, no sample), else 0.
  std::vector<uint8_t> expectation_sentences(int64_t B, Generator& gen) const {
    std::vector<uint8_t> soft(static_cast<size_t>(B), 0);
    for (auto& s : soft) s = config_.hard_expectation > 0 && gen.uniform() < config_.hard_expectation;
    return soft;
  }

  // The entropy H_b = −Σ a log a over every (head, query, key) of sentence b, [B]; a hidden key (a = 0 exactly)
  // adds 0 · log 1 = 0.
  static Tensor entropy_of(const Tensor& a) {
    const int64_t B = a.size(0);
    Tensor zero = Tensor::zeros(a.shape());                                  // [B, h, Tq, Tk]  1 where a = 0
    for (int64_t n = 0; n < a.numel(); ++n) zero.data()[n] = a.data()[n] == 0 ? 1 : 0;
    Tensor a_log_a = mul(a, log(add(a, zero)));                              // [B, h, Tq, Tk]
    return scale(sum(reshape(a_log_a, {B, a.numel() / B}), 1), -1);          // [B]
  }

  // reinforce: per sentence the soft weights (hard_expectation) or one sampled key per (head, query). Keeps
  // log π = log a_{i, s_i} [B, h, Tq] (0 where nothing was sampled) and H [B], both in the graph.
  Tensor sample(const Tensor& a, ForwardContext& ctx) {
    if (!ctx.generator) throw Error("hard attention " + name + ": sampling while training needs a random generator");
    const int64_t B = a.size(0);
    const std::vector<uint8_t> soft = expectation_sentences(B, *ctx.generator);
    const std::vector<int64_t> keys = draw_keys(a, *ctx.generator, soft);    // s_i, or −1: not sampled
    Tensor unsampled = Tensor::zeros({B, a.size(1), a.size(2)});             // [B, h, Tq]   1: no sample here
    for (size_t r = 0; r < keys.size(); ++r) unsampled.data()[r] = keys[r] < 0 ? 1 : 0;
    Tensor picked = one_hot(a, keys);                                        // [B, h, Tq, Tk] constant
    Tensor a_picked = sum(mul(a, picked), -1);                               // [B, h, Tq]  a_{i, s_i} (or 0)
    log_pi_ = log(add(a_picked, unsampled));                                 // [B, h, Tq]  log a_{i, s_i} (or 0)
    entropy_ = entropy_of(a);                                                // [B]
    a_ = a.detach();
    keys_ = keys;
    soft_ = soft;
    return add(mul(a, expectation_mask(soft)), picked);                      // [B, h, Tq, Tk]  a or one-hot
  }

  // gumbel_st: the Gumbel-max sample of every row, forwarded as its one-hot row with the relaxed softmax's
  // gradient (straight_through); sentences drawn for hard_expectation use a itself.
  Tensor relax(const Tensor& scores, const Tensor& additive_mask, const Tensor& a, ForwardContext& ctx) {
    if (!ctx.generator) throw Error("hard attention " + name + ": sampling while training needs a random generator");
    const int64_t B = a.size(0), Tk = a.size(3);
    const double tau = std::max(config_.hard_temperature_min,
                                config_.hard_temperature * std::exp(-config_.hard_temperature_decay * double(passes_)));
    ++passes_;
    const std::vector<uint8_t> soft = expectation_sentences(B, *ctx.generator);
    Tensor noise = Tensor::zeros(a.shape());                                 // [B, h, Tq, Tk]  g = −log(−log u)
    for (int64_t n = 0; n < noise.numel(); ++n) {
      const double u = std::max(ctx.generator->uniform(), 1e-300);
      noise.data()[n] = static_cast<real>(-std::log(-std::log(u)));
    }
    Tensor y = gumbel_softmax(scores, additive_mask, noise, tau);           // [B, h, Tq, Tk]
    std::vector<int64_t> keys = argmax_keys(y);                              // argmax_j (z + g): s ~ a
    const int64_t rows_per_sentence = a.numel() / (B * Tk);
    for (size_t r = 0; r < keys.size(); ++r) {
      if (soft[r / static_cast<size_t>(rows_per_sentence)]) keys[r] = -1;
    }
    entropy_ = entropy_of(a);                                                // [B], for hard_entropy
    keys_ = keys;                                                            // for a replay pass
    soft_ = soft;
    Tensor mask = expectation_mask(soft);                                    // [B, 1, 1, 1]
    Tensor sampled = mul(straight_through(y, keys), sub(Tensor::full(mask.shape(), 1), mask));
    return add(mul(a, mask), sampled);                                       // [B, h, Tq, Tk]
  }

  // hard_clean_reward's second pass (ForwardContext::replay_samples): the keys and the expectation sentences of
  // the training pass just before, on this pass's a — the same choices, read without dropout.
  Tensor replay(const Tensor& a) const {
    if (keys_.size() != static_cast<size_t>(a.numel() / a.size(3)) || soft_.size() != static_cast<size_t>(a.size(0))) {
      throw Error("hard attention " + name + ": a replay pass needs a training pass over the same batch just before");
    }
    return add(mul(a, expectation_mask(soft_)), one_hot(a, keys_));          // [B, h, Tq, Tk]  a or one-hot
  }

  // [B, 1, 1, 1]: 1 for the sentences that use the expectation.
  static Tensor expectation_mask(const std::vector<uint8_t>& soft) {
    Tensor mask = Tensor::zeros({static_cast<int64_t>(soft.size()), 1, 1, 1});
    for (size_t b = 0; b < soft.size(); ++b) mask.data()[b] = soft[b];
    return mask;
  }

  // ‖∂term/∂z‖ for hard_clip: per sampled row (b, head, t) with key s and entropy H_i = −Σ a log a,
  // g_j = −(A/N)(δ_{j,s} − a_j) + (λ_e/N) a_j (log a_j + H_i); the rows not sampled have only the second part.
  double score_gradient_norm(const Tensor& advantage, double N) const {
    const int64_t Tk = a_.size(3), rows = a_.numel() / Tk;
    double squares = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const real* a = a_.data() + r * Tk;                                    // [Tk]
      double H = 0;
      for (int64_t j = 0; j < Tk; ++j) if (a[j] > 0) H -= a[j] * std::log(double(a[j]));
      const int64_t s = keys_[static_cast<size_t>(r)];
      const double A = s >= 0 ? double(advantage.data()[r]) : 0.0;
      for (int64_t j = 0; j < Tk; ++j) {
        if (a[j] == 0) continue;                                             // hidden: no gradient
        const double g = -A / N * ((j == s ? 1.0 : 0.0) - a[j]) + config_.hard_entropy / N * a[j] * (std::log(double(a[j])) + H);
        squares += g * g;
      }
    }
    return std::sqrt(squares);
  }

  // One key per row of a [B, h, Tq, Tk] drawn from the row (inverse CDF); −1 for a row with no visible key and for
  // every row of a sentence marked in `skip` (empty: none).
  static std::vector<int64_t> draw_keys(const Tensor& a, Generator& gen, const std::vector<uint8_t>& skip) {
    const int64_t Tk = a.size(3), rows = a.numel() / Tk, rows_per_sentence = rows / a.size(0);
    std::vector<int64_t> keys(static_cast<size_t>(rows), -1);
    for (int64_t r = 0; r < rows; ++r) {
      if (!skip.empty() && skip[static_cast<size_t>(r / rows_per_sentence)]) continue;
      keys[static_cast<size_t>(r)] = draw(a.data() + r * Tk, Tk, gen);
    }
    return keys;
  }

  // The first key j with a_0 + … + a_j > u · Σ a (u uniform): a sample of the row a [Tk]. −1 when no key is
  // visible; a hidden key (a = 0) is never chosen; the last visible one if rounding leaves u at the total.
  static int64_t draw(const real* row, int64_t Tk, Generator& gen) {
    real total = 0;
    for (int64_t j = 0; j < Tk; ++j) total += row[j];
    if (!(total > 0)) return -1;
    const double u = gen.uniform() * total;
    double running = 0;
    int64_t s = -1;
    for (int64_t j = 0; j < Tk; ++j) {
      if (row[j] == 0) continue;
      s = j;
      running += row[j];
      if (u < running) break;
    }
    return s;
  }

  // The key of largest weight of every row of a [B, h, Tq, Tk] (the first of equal maxima); −1 for a row of 0s.
  static std::vector<int64_t> argmax_keys(const Tensor& a) {
    const int64_t Tk = a.size(3), rows = a.numel() / Tk;
    std::vector<int64_t> keys(static_cast<size_t>(rows), -1);
    for (int64_t r = 0; r < rows; ++r) {
      const real* row = a.data() + r * Tk;
      const int64_t best = std::max_element(row, row + Tk) - row;
      if (row[best] > 0) keys[static_cast<size_t>(r)] = best;
    }
    return keys;
  }

  // Rows of 0 with a 1 at keys[row] (none where keys[row] = −1), shaped like a. A constant: no gradient.
  static Tensor one_hot(const Tensor& a, const std::vector<int64_t>& keys) {
    const int64_t Tk = a.size(3);
    Tensor rows = Tensor::zeros(a.shape());                                  // [B, h, Tq, Tk]
    for (size_t r = 0; r < keys.size(); ++r) {
      if (keys[r] >= 0) rows.data()[static_cast<int64_t>(r) * Tk + keys[r]] = 1;
    }
    return rows;
  }

  AttentionConfig config_;
  bool queries_are_targets_;  // decoder and cross uses: query t is target position t (hard_reward: position)
  int64_t heads_;
  Tensor log_pi_;             // [B, h, Tq], log a_{i, s_i} of the last training forward (undefined: none pending)
  Tensor entropy_;            // [B], H[a] of the same forward
  Tensor a_;                  // [B, h, Tq, Tk] a and the keys drawn, for hard_clip's norm (no graph)
  std::vector<int64_t> keys_;  // the keys of the last training pass, one per (b, head, query); −1: not sampled
  std::vector<uint8_t> soft_; // its sentences that used the expectation (hard_expectation)
  RewardBaseline baseline_;   // b, the moving averages of the reward (hard_reward.h)
  int64_t passes_ = 0;        // training passes so far, for gumbel_st's temperature
  Generator eval_generator_{1};   // hard_eval: sample
};

}  // namespace

// `dropout` is accepted for the common interface but unused: a one-hot row has nothing to drop but everything.
std::unique_ptr<Attention> make_hard_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                               int64_t heads, double /*dropout*/, Generator& init) {
  return std::make_unique<HardAttention>(c, use, d_model, heads, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
