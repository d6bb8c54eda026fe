// hard.cpp — hard (stochastic) attention (Xu et al. 2015, "Show, Attend and Tell", §4.1): each query takes the
// value of ONE key, chosen at random from its attention distribution, and learns where to look by REINFORCE or by
// a Gumbel-softmax relaxation.
//   score_ij = q_i · k_j / √d_k,  out_i = v_{s_i},  s_i ~ softmax_j(score_ij)
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
// How the reward gets here. A training forward that draws hands the step what it drew and what it owes
// (nn/sampled.h): a SampledChoice in ctx.sampled whose score_function, given each target token's log-likelihood,
// returns the term above divided by the target tokens N (as the loss is); the step adds it to the loss.
// Caveats. The baselines and the temperature's pass count live in the module and are not saved in checkpoints (a
// resumed run starts them again). model.dropout does not fall on hard attention's weights (dropping a one-hot row
// would drop the whole value). The reward is measured on the training pass, dropout included — or, with
// hard_clean_reward, on a second pass without dropout that replays the keys drawn (ctx.replay, Seq2Seq::loss): R is
// then log p(y | s) of the model itself, not of one dropout mask, while the loss's own gradient keeps dropout.
//
// The maps show the distribution a (what the key is drawn from), never the one-hot row: the recorder gets a, and
// the key chosen is traced as "chosen" (the neuron view's chosen_key marks it on top of a).
// Paths: the chain only (model.path: fused runs it too). The estimators' code is in hard_estimators.cpp.
#include <algorithm>
#include <cmath>

#include "attention/hard_estimators.h"
#include "attention/scaled_dot.h"
#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// scaled_dot's score and weights a; what mixes the values is one key drawn from a.
class HardAttention : public ScaledDotAttention {
 public:
  // No dropout: dropping from a one-hot row would drop the whole value.
  HardAttention(const AttentionConfig& c, AttentionUse use, int64_t d_model, int64_t heads, Generator& init)
      : ScaledDotAttention(c, d_model, heads, /*dropout=*/0, /*d_k=*/d_model / heads),
        queries_are_targets_(use != AttentionUse::encoder_self) {
    add_projections(d_model, init);                                          // W_Q, W_K, W_V, W_O
  }

  // What multiplies V [B, h, Tq, Tk]: the one-hot row of the key drawn (training), or by hard_eval.
  Tensor mixing(const Tensor& a, const Tensor& scores, const AttentionMask& mask, ForwardContext& ctx) override {
    Tensor chosen;                                                           // [B, h, Tq, Tk]
    if (ctx.replay) {
      chosen = replay(a, *ctx.replay);                                       // the keys of the training pass
    } else if (ctx.training) {
      const bool gumbel = config_.hard_estimator == HardEstimator::gumbel_st;
      chosen = gumbel ? relax(scores, mask.additive(config_), a, ctx) : sample(a, ctx);
    } else if (config_.hard_eval == HardEval::expectation) {
      chosen = a;                                                            // Σ_j a_ij v_j, as soft attention
    } else if (config_.hard_eval == HardEval::sample) {
      chosen = one_hot(a, draw_keys(a, ctx.generator ? *ctx.generator : eval_generator_, {}));
    } else {
      chosen = one_hot(a, argmax_keys(a));                                   // the likeliest key, a constant
    }
    ctx.trace(*this, "chosen", chosen);
    return chosen;
  }

  // Incremental decoding (evaluation only): the cached keys' distribution, then its argmax, a sample or the mix.
  // A sample's uniform number is drawn for every row first, in row order: rows may be weighed on several threads.
  Tensor attend_step(const Tensor& Q, const Tensor&, const AttentionCache& cache) override {
    std::vector<double> u(config_.hard_eval == HardEval::sample ? size_t(Q.numel() / Q.size(3)) : 0);   // [B·h]
    for (double& number : u) number = eval_generator_.uniform();
    return attend_keys(Q, cache, [&](int64_t row, int64_t, std::vector<real>& a) {
      softmax_in_place(a);
      if (config_.hard_eval == HardEval::expectation) return;
      auto pick = std::max_element(a.begin(), a.end());                      // the first of equal maxima, as forward
      if (config_.hard_eval == HardEval::sample) {
        const int64_t s = draw_at(a.data(), int64_t(a.size()), u[size_t(row)]);
        pick = s < 0 ? a.end() : a.begin() + s;
      }
      const bool any = pick != a.end() && *pick > 0;
      for (auto w = a.begin(); w != a.end(); ++w) *w = (any && w == pick) ? real(1) : real(0);
    });                                                                      // [B, h, 1, d_k]
  }

 private:
  // reinforce: per sentence the soft weights (hard_expectation) or one key drawn per (head, query); the draws
  // owe log π = log a_{i, s_i} [B, h, Tq] (0 where nothing was drawn) and H [B], both in the graph.
  Tensor sample(const Tensor& a, ForwardContext& ctx) {
    Generator& gen = generator_of(ctx);
    const std::vector<uint8_t> soft = expectation_sentences(a.size(0), config_.hard_expectation, gen);
    const std::vector<int64_t> keys = draw_keys(a, gen, soft);               // s_i, or −1: not drawn
    Tensor undrawn = Tensor::zeros({a.size(0), a.size(1), a.size(2)});       // [B, h, Tq]   1: no draw here
    for (size_t r = 0; r < keys.size(); ++r) undrawn.data()[r] = keys[r] < 0 ? 1 : 0;
    Tensor picked = one_hot(a, keys);                                        // [B, h, Tq, Tk] constant
    Tensor a_picked = sum(mul(a, picked), -1);                               // [B, h, Tq]  a_{i, s_i} (or 0)
    owe(ctx, soft, HardDraws{log(add(a_picked, undrawn)), entropy_of(a), a.detach(), keys});
    return add(mul(a, expectation_mask(soft)), picked);                      // [B, h, Tq, Tk]  a or one-hot
  }

  // gumbel_st: the Gumbel-max sample of every row, forwarded as its one-hot row with the relaxed softmax's
  // gradient (straight_through); sentences drawn for hard_expectation use a itself. τ anneals with the passes.
  Tensor relax(const Tensor& scores, const Tensor& additive_mask, const Tensor& a, ForwardContext& ctx) {
    Generator& gen = generator_of(ctx);
    const double tau = std::max(config_.hard_temperature_min,
                                config_.hard_temperature * std::exp(-config_.hard_temperature_decay * double(passes_)));
    ++passes_;
    const std::vector<uint8_t> soft = expectation_sentences(a.size(0), config_.hard_expectation, gen);
    Tensor y = gumbel_softmax(scores, additive_mask, gumbel_noise(a.shape(), gen), tau);   // [B, h, Tq, Tk]
    std::vector<int64_t> keys = argmax_keys(y);                              // argmax_j (z + g): s ~ a
    const size_t rows_per_sentence = keys.size() / soft.size();
    for (size_t r = 0; r < keys.size(); ++r) if (soft[r / rows_per_sentence]) keys[r] = -1;
    owe(ctx, soft, HardDraws{Tensor(), entropy_of(a), Tensor(), keys});      // the entropy bonus, if any
    Tensor mask = expectation_mask(soft);                                    // [B, 1, 1, 1]
    Tensor drawn = mul(straight_through(y, keys), sub(Tensor::full(mask.shape(), 1), mask));
    return add(mul(a, mask), drawn);                                         // [B, h, Tq, Tk]
  }

  // Hands the step these draws and what they owe (nn/sampled.h): the score-function term, once the rewards are known.
  void owe(ForwardContext& ctx, const std::vector<uint8_t>& soft, HardDraws draws) {
    if (!ctx.sampled) return;                                                // nobody will learn from them
    SampledChoice choice{this, draws.keys, soft, {}};
    choice.score_function = [this, draws = std::move(draws)](const Rewards& rewards) {
      return reinforce_term(draws, rewards, config_, queries_are_targets_, baseline_, name);
    };
    ctx.sampled->choices.push_back(std::move(choice));
  }

  // hard_clean_reward's second pass: the keys and the expectation sentences this module drew in the training pass
  // just before, on this pass's a — the same choices, read without dropout.
  Tensor replay(const Tensor& a, const SampledChoices& drawn) const {
    const SampledChoice* mine = drawn.of(*this);
    if (!mine || mine->keys.size() != size_t(a.numel() / a.size(3)) || mine->soft.size() != size_t(a.size(0))) {
      throw Error("hard attention " + name + ": a replay pass needs a training pass over the same batch just before");
    }
    return add(mul(a, expectation_mask(mine->soft)), one_hot(a, mine->keys));   // [B, h, Tq, Tk]  a or one-hot
  }

  Generator& generator_of(ForwardContext& ctx) const {
    if (!ctx.generator) throw Error("hard attention " + name + ": sampling while training needs a random generator");
    return *ctx.generator;
  }

  bool queries_are_targets_;      // decoder and cross uses: query t is target position t (hard_reward: position)
  RewardBaseline baseline_;       // b, the moving averages of the reward (hard_reward.h)
  int64_t passes_ = 0;            // training passes so far, for gumbel_st's temperature
  Generator eval_generator_{1};   // hard_eval: sample
};

}  // namespace

std::unique_ptr<Attention> make_hard_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                               int64_t heads, double /*dropout: none on a one-hot row*/,
                                               Generator& init) {
  return std::make_unique<HardAttention>(c, use, d_model, heads, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
