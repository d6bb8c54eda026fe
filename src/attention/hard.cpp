// hard.cpp — hard (stochastic) attention (Xu et al. 2015, "Show, Attend and Tell", §4.1): each query takes the
// value of ONE key, chosen at random from its attention distribution, and learns where to look by REINFORCE.
//
// The idea. Soft attention mixes every value: out_i = Σ_j a_ij v_j. Hard attention picks one:
//     a_i· = softmax(q_i K_hᵀ / √d_k + mask)          the distribution over keys, per head (as scaled_dot)
//     s_i ~ Categorical(a_i·)                          while training: a sample, one key per query and head
//     out_i = v_{s_i}                                  then heads merged and W_O, as scaled_dot
// The sample is a discrete choice: the loss has no gradient with respect to it, so W_Q and W_K (which make a)
// get nothing from backpropagation. Xu et al. maximise a lower bound of log p(y) whose gradient is, per sentence,
//     ∂/∂W [log p(y | s)]  +  λ_r (log p(y | s) − b) · ∂/∂W log p(s | a)  +  λ_e ∂/∂W H[a]
// — the score-function (REINFORCE) estimator: sampled keys that led to a good translation (reward R =
// log p(y | s) above the baseline b) are made likelier, the others less likely. Written as a loss to minimise,
// per sentence, next to the usual −log p(y | s):
//     − (R − b) · log π(s) − λ_e H         log π(s) = Σ over heads and queries of log a_{i, s_i}
// with R − b a constant (no gradient flows into the reward). Its expectation over s has the same gradient as
// E_s[−log p(y | s)]: ∇ E[ℓ(s)] = E[∇ℓ(s) + ℓ(s) ∇ log π(s)], and R = −ℓ; b may be any number that does not
// depend on this sample (E[∇ log π] = 0), and a good one lowers the variance. Mind the sign: −(R − b), not
// +(R − b) — with the other sign good samples become rarer (tests/attention/f64_attention_local_hard.cpp pins it).
//
// Xu et al.'s three variance reducers, each a config key (configs/README.md):
//   hard_baseline_decay   b ← 0.9 b + 0.1 · (the batch's mean reward), a moving average; b starts at the first
//                         batch's mean (zero would be far from rewards of −30 and make the first steps wild)
//   hard_entropy          λ_e, the entropy bonus −λ_e H[a]: keeps the distribution from collapsing early
//   hard_expectation      with this probability a sentence uses the expectation Σ_j a_ij v_j (soft attention)
//                         instead of a sample; its gradient is then the ordinary one (Xu used 0.5)
// λ_r is 1 here. At evaluation: the argmax key (hard_eval: argmax) or the expectation (hard_eval: expectation).
//
// How the reward gets here. forward() samples and keeps log π(s) and H per sentence (in the graph). The model,
// once it knows each sentence's log-likelihood, calls score_function_loss(rewards, tokens), which returns
//     (1 / tokens) · Σ_b [ −(R_b − b) log π_b − λ_e H_b ]
// for the trainer to add to the loss (divided by the target tokens, as the loss is), and updates b. So attention
// never needs to know about training: the model asks, the trainer adds.
// Caveats. The baseline lives in the module and is not saved in checkpoints (a resumed run starts it again).
// model.dropout does not fall on hard attention's weights (dropping a one-hot row would drop the whole value).
// Padded queries sample too; their samples change no loss, so they add noise but no bias.
//
// The maps show one key per row: the sampled key while training, the argmax at evaluation (a row of 1 and 0s),
// or the soft weights for the sentences that used the expectation.
// Paths: the paper's chain only (model.path: fused runs it too).
#include <algorithm>
#include <cmath>
#include <limits>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "nn/layers.h"
#include "util/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

class HardAttention : public Attention {
 public:
  HardAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, Generator& init)
      : q_proj(register_module("q_proj", std::make_unique<Linear>(d_model, d_model, init))),
        k_proj(register_module("k_proj", std::make_unique<Linear>(d_model, d_model, init))),
        v_proj(register_module("v_proj", std::make_unique<Linear>(d_model, d_model, init))),
        out_proj(register_module("out_proj", std::make_unique<Linear>(d_model, d_model, init))),
        config_(c),
        heads_(heads) {}

  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override {
    Tensor Q = split_heads(q_proj.forward(x), heads_);                      // [B, h, Tq, d_k]
    ctx.trace(*this, "q", Q);
    Tensor K = split_heads(k_proj.forward(memory), heads_);                 // [B, h, Tk, d_k]
    ctx.trace(*this, "k", K);
    Tensor V = split_heads(v_proj.forward(memory), heads_);                 // [B, h, Tk, d_k]
    ctx.trace(*this, "v", V);
    const Tensor hidden = mask.additive(config_);                           // [B, 1, Tq, Tk], 0 or −∞
    Tensor scores = matmul(Q, K, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, h, Tq, Tk] = Q Kᵀ
    if (config_.scale) scores = scale(scores, score_scale(Q.size(3)));      // [B, h, Tq, Tk] / √d_k
    ctx.trace(*this, "scores", scores, hidden);
    Tensor a = softmax(scores, hidden);                                     // [B, h, Tq, Tk], the distribution
    ctx.trace(*this, "weights", a);

    Tensor chosen;                                                          // [B, h, Tq, Tk], what mixes the values
    if (ctx.training) {
      chosen = sample(a, ctx);
    } else if (config_.hard_eval == HardEval::expectation) {
      chosen = a;                                                           // Σ_j a_ij v_j, as soft attention
    } else {
      chosen = one_hot(a, argmax_keys(a));                                  // the likeliest key, a constant
    }
    ctx.trace(*this, "chosen", chosen);
    if (ctx.recorder) ctx.recorder->record(name, chosen);
    Tensor context = matmul(chosen, V);                                     // [B, h, Tq, d_k]  v_{s_i}
    ctx.trace(*this, "context", context);
    Tensor out = out_proj.forward(merge_heads(context));                    // [B, Tq, d_model]
    ctx.trace(out_proj, out);
    return out;
  }

  Tensor score_function_loss(const std::vector<double>& rewards, double tokens) override {
    if (!log_pi_.defined()) return Tensor();                                // no sample since the last call
    const int64_t B = log_pi_.size(0);
    if (static_cast<int64_t>(rewards.size()) != B || !(tokens > 0)) {
      throw Error("hard attention " + name + ": " + std::to_string(rewards.size()) + " rewards for a batch of " +
                  std::to_string(B) + " sentences (and " + std::to_string(tokens) + " tokens)");
    }
    double mean_reward = 0;
    for (double R : rewards) mean_reward += R / double(B);
    if (!has_baseline_) {                                                   // the first batch's mean
      baseline_ = mean_reward;
      has_baseline_ = true;
    }
    Tensor advantage = Tensor::zeros({B});                                  // [B]  R_b − b, a constant
    for (int64_t b = 0; b < B; ++b) advantage.data()[b] = static_cast<real>(rewards[static_cast<size_t>(b)] - baseline_);
    Tensor reinforce = sum(mul(advantage, log_pi_));                        // [1]  Σ_b (R_b − b) log π_b
    Tensor bonus = sum(entropy_);                                           // [1]  Σ_b H_b
    Tensor term = add(scale(reinforce, static_cast<real>(-1 / tokens)),     // −(1/N) Σ (R − b) log π
                      scale(bonus, static_cast<real>(-config_.hard_entropy / tokens)));   // −(λ_e/N) Σ H
    baseline_ = config_.hard_baseline_decay * baseline_ + (1 - config_.hard_baseline_decay) * mean_reward;
    log_pi_ = Tensor();
    entropy_ = Tensor();
    return term;
  }

  // Incremental decoding (evaluation only): the cached keys' distribution, then its argmax (or the expectation).
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
    const bool argmax = config_.hard_eval == HardEval::argmax;
    Tensor context = attend_cached(
        cache, config_,
        [&](int64_t row, const real* k) { return dot_product(Q.data() + row * d_k, k, d_k) * factor; },
        [&](int64_t, int64_t, std::vector<real>& a) {
          softmax_in_place(a);
          if (!argmax) return;
          const auto best = std::max_element(a.begin(), a.end());           // the first of equal maxima, as forward
          const bool any = best != a.end() && *best > 0;
          for (auto w = a.begin(); w != a.end(); ++w) *w = (any && w == best) ? real(1) : real(0);
        });                                                                  // [B, h, 1, d_k]
    ++cache.position;
    return out_proj.forward(merge_heads(context));                           // [B, 1, d_model]
  }

  Linear& q_proj;
  Linear& k_proj;
  Linear& v_proj;
  Linear& out_proj;

 private:
  // Training: per sentence, with probability hard_expectation the soft weights, otherwise one sampled key per
  // (head, query). Keeps log π_b = Σ log a_{i, s_i} and H_b = −Σ a log a, both [B] and in the graph.
  Tensor sample(const Tensor& a, ForwardContext& ctx) {
    if (!ctx.generator) throw Error("hard attention " + name + ": sampling while training needs a random generator");
    const int64_t B = a.size(0), rows = a.size(1) * a.size(2), Tk = a.size(3);   // rows: h · Tq per sentence
    std::vector<int64_t> keys(static_cast<size_t>(B * rows), -1);            // s_i, or −1: not sampled
    Tensor soft = Tensor::zeros({B, 1, 1, 1});                               // [B, 1, 1, 1] 1: the expectation
    Tensor unsampled = Tensor::zeros({B, a.size(1), a.size(2)});             // [B, h, Tq]   1: no sample here
    for (int64_t b = 0; b < B; ++b) {
      const bool expectation = config_.hard_expectation > 0 && ctx.generator->uniform() < config_.hard_expectation;
      soft.data()[b] = expectation ? 1 : 0;
      for (int64_t r = 0; r < rows; ++r) {
        const real* row = a.data() + (b * rows + r) * Tk;                    // a_i· [Tk]
        real total = 0;
        for (int64_t j = 0; j < Tk; ++j) total += row[j];
        if (!expectation && total > 0) {                                     // a row with no visible key: none
          const double u = ctx.generator->uniform() * total;                 // inverse CDF: the first key j
          double running = 0;                                                // with a_i0 + … + a_ij > u
          int64_t& s_i = keys[static_cast<size_t>(b * rows + r)];
          for (int64_t j = 0; j < Tk; ++j) {
            if (row[j] == 0) continue;                                       // hidden: never chosen
            s_i = j;                                                         // (the last visible, if rounding
            running += row[j];                                               //  leaves u ≥ the total)
            if (u < running) break;
          }
        }
        if (keys[static_cast<size_t>(b * rows + r)] < 0) unsampled.data()[b * rows + r] = 1;
      }
    }
    Tensor picked = one_hot(a, keys);                                        // [B, h, Tq, Tk] constant
    // log π_b: log a_{i, s_i} = log Σ_j a_ij [j = s_i]; an unsampled row adds log 1 = 0.
    Tensor a_picked = sum(mul(a, picked), -1);                               // [B, h, Tq]  a_{i, s_i} (or 0)
    Tensor log_picked = log(add(a_picked, unsampled));                       // [B, h, Tq]  log a_{i, s_i} (or 0)
    log_pi_ = sum(reshape(log_picked, {B, rows}), 1);                        // [B]
    // H_b = −Σ a log a over every (head, query, key); a hidden key (a = 0 exactly) adds 0 · log 1 = 0.
    Tensor zero = Tensor::zeros(a.shape());                                  // [B, h, Tq, Tk]  1 where a = 0
    for (int64_t n = 0; n < a.numel(); ++n) zero.data()[n] = a.data()[n] == 0 ? 1 : 0;
    Tensor a_log_a = mul(a, log(add(a, zero)));                              // [B, h, Tq, Tk]
    entropy_ = scale(sum(reshape(a_log_a, {B, rows * Tk}), 1), -1);           // [B]
    return add(mul(a, soft), picked);                                        // [B, h, Tq, Tk]  a or one-hot
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
  int64_t heads_;
  Tensor log_pi_;            // [B], log π(s) of the last training forward's samples (undefined: none pending)
  Tensor entropy_;           // [B], H[a] of the same forward
  double baseline_ = 0;      // b, the moving average of the reward
  bool has_baseline_ = false;
};

}  // namespace

// `dropout` is accepted for the common interface but unused: a one-hot row has nothing to drop but everything.
std::unique_ptr<Attention> make_hard_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                               int64_t heads, double /*dropout*/, Generator& init) {
  return std::make_unique<HardAttention>(c, d_model, heads, init);
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
