// f64_hard_estimators.cpp — facts about hard attention's score function (src/attention/hard.cpp, hard_reward.cpp),
// in float64, on a model small enough to enumerate every sample:
//   * it is unbiased for every variant that claims it — sentence or position reward (γ = 1), moving or
//     leave-one-out baseline: the mean of many sampled gradients matches the exact gradient of the expected loss;
//   * γ < 1 is measurably biased; a baseline that moves with its own sample's reward is caught by the baseline test;
//   * normalised advantages (not unbiased) point the same way as the exact gradient; hard_clip clips ‖∂term/∂z‖;
//   * the sign of the score term: a sample rewarded above the baseline becomes likelier, one below less likely.
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "attention/hard_reward.h"
#include "attention_test_support.h"
#include "autograd/ops.h"
#include "util/error.h"

using namespace attnlab;
using namespace attnlab::attention_test;

namespace {

// The tiny model of the estimator tests: one head, d_model 2, cross-attention from 2 target positions to 3 keys in
// each of `batch` sentences, and per-position losses where position 1 also depends on position 0's choice (as a
// decoder's later words depend on its earlier ones):
//     ℓ_b0 = ½ ‖out_b0 − y_b0‖²,     ℓ_b1 = ½ ‖out_b1 + out_b0 − y_b1‖²,     log p(y_bt) = −ℓ_bt
// Every joint sample of a sentence s = (s_0, s_1) ∈ {0, 1, 2}² can be listed: 9 of them.
struct TinyHard {
  explicit TinyHard(int64_t batch = 2, AttentionConfig config = kind_config(AttentionKind::hard)) : B(batch), gen(2026) {
    config.hard_entropy = 0;                                                // the estimator alone
    module = make(config, AttentionUse::cross, /*d_model=*/2, /*heads=*/1, /*seed=*/31);
    x = scale(Tensor::randn({B, 2, 2}, gen), 2);                             // queries [B, 2, 2]
    memory = scale(Tensor::randn({B, 3, 2}, gen), 2);                        // keys [B, 3, 2]
    y = Tensor::randn({B, 2, 2}, gen);                                       // the targets of the losses
    mask = make_length_mask(std::vector<int64_t>(static_cast<size_t>(B), 3), 2, 3, false);
  }
  // ℓ [B, 2] of the outputs out [B, 2, 2].
  Tensor losses(const Tensor& out) const {
    Tensor first = slice(out, 1, 0, 1), second = slice(out, 1, 1, 2);        // [B, 1, 2]
    Tensor e0 = sub(first, slice(y, 1, 0, 1)), e1 = sub(add(second, first), slice(y, 1, 1, 2));
    return scale(sum(mul(concat({e0, e1}, 1), concat({e0, e1}, 1)), -1), 0.5);   // [B, 2]
  }
  Rewards rewards_of(const Tensor& losses) const {                          // log p = −ℓ, N = 1
    Rewards r{B, 2, std::vector<double>(static_cast<size_t>(B * 2)), std::vector<uint8_t>(static_cast<size_t>(B * 2), 1), 1};
    for (int64_t n = 0; n < B * 2; ++n) r.log_p[static_cast<size_t>(n)] = -losses.data()[n];
    return r;
  }
  Rewards rewards_all(double sentence_reward) const {                       // every sentence's sum: this number
    Rewards r{B, 2, std::vector<double>(static_cast<size_t>(B * 2), sentence_reward / 2), std::vector<uint8_t>(static_cast<size_t>(B * 2), 1), 1};
    return r;
  }
  std::vector<double> gradients() const {                                  // every parameter's, in order
    std::vector<double> all;
    for (const NamedParameter& p : module->named_parameters())
      for (real g : p.tensor.grad_values()) all.push_back(g);
    return all;
  }
  int64_t B;
  Generator gen;
  std::unique_ptr<Attention> module;
  Tensor x, memory, y;
  AttentionMask mask;
};

// The exact gradient of Σ_b E_s[ℓ_b0 + ℓ_b1] = Σ_b Σ_s π_b(s) ℓ_b(s), from the parameters (not through the
// module): a = softmax(Q Kᵀ / √d_k), π_b(s) = a_{b0, s_0} a_{b1, s_1}, out(s) = (v_{s_0}; v_{s_1}) W_Oᵀ + b_O.
std::vector<double> exact_gradient(TinyHard& tiny) {
  const Attention& m = *tiny.module;
  auto linear = [&](const std::string& name, const Tensor& in) {           // in W_nameᵀ + b_name
    return add(matmul(in, parameter_named(m, name + ".weight"), false, true), parameter_named(m, name + ".bias"));
  };
  tiny.module->zero_grad();
  Tensor Q = linear("q_proj", tiny.x), K = linear("k_proj", tiny.memory), V = linear("v_proj", tiny.memory);
  Tensor a = softmax(scale(matmul(Q, K, false, true), score_scale(2)));     // [B, 2, 3]
  Tensor expected;
  for (int64_t s0 = 0; s0 < 3; ++s0)
    for (int64_t s1 = 0; s1 < 3; ++s1) {
      Tensor pick = Tensor::zeros({tiny.B, 2, 3});                          // the one-hot rows of s, every sentence
      for (int64_t b = 0; b < tiny.B; ++b) pick.data()[b * 6 + s0] = 1, pick.data()[b * 6 + 3 + s1] = 1;
      Tensor a_s = sum(mul(a, pick), -1);                                   // [B, 2]: a_{b0,s0}, a_{b1,s1}
      Tensor pi = mul(slice(a_s, 1, 0, 1), slice(a_s, 1, 1, 2));            // [B, 1]
      Tensor term = sum(mul(pi, sum(tiny.losses(linear("out_proj", matmul(pick, V))), -1, /*keep=*/true)));
      expected = expected.defined() ? add(expected, term) : term;
    }
  expected.backward();
  return tiny.gradients();
}

struct Estimate {
  std::vector<double> mean, standard_error;
};

// The mean of `samples` sampled gradients of Σ ℓ + the score term, and its standard error, per parameter number.
Estimate sampled_gradients(TinyHard& tiny, int samples) {
  const size_t n = tiny.gradients().size();
  std::vector<double> total(n, 0), squares(n, 0);
  Generator sampling(77);
  for (int k = 0; k < samples; ++k) {
    tiny.module->zero_grad();
    ForwardContext ctx{/*training=*/true, &sampling, nullptr};
    SampledChoices drawn;
    ctx.sampled = &drawn;
    Tensor losses = tiny.losses(tiny.module->forward(tiny.x, tiny.memory, tiny.mask, ctx));   // [B, 2], s sampled
    Tensor term = term_of(drawn, tiny.rewards_of(losses));
    add(sum(losses), term).backward();                                       // ∇ℓ − A ∇ log π
    const std::vector<double> g = tiny.gradients();
    for (size_t c = 0; c < n; ++c) total[c] += g[c], squares[c] += g[c] * g[c];
  }
  Estimate e;
  for (size_t c = 0; c < n; ++c) {
    const double mean = total[c] / samples;
    e.mean.push_back(mean);
    e.standard_error.push_back(std::sqrt(std::max(squares[c] / samples - mean * mean, 0.0) / samples));
  }
  return e;
}

// The largest |mean − exact| / standard error, and the largest |exact| / standard error, over W_Q and W_K (the
// parameters that only the score term reaches); `all` also CHECKs every parameter within 4 standard errors.
std::pair<double, double> misses(TinyHard& tiny, const Estimate& e, const std::vector<double>& exact, bool check_all) {
  double miss = 0, signal = 0;
  size_t k = 0;
  for (const NamedParameter& p : tiny.module->named_parameters()) {
    for (int64_t c = 0; c < p.tensor.numel(); ++c, ++k) {
      const double se = e.standard_error[k] + 1e-300;
      CAPTURE(p.name);
      CAPTURE(c);
      if (check_all) CHECK(std::abs(e.mean[k] - exact[k]) <= 4 * se + 1e-12);
      if (p.name.starts_with("q_proj") || p.name.starts_with("k_proj")) {
        miss = std::max(miss, std::abs(e.mean[k] - exact[k]) / se);
        signal = std::max(signal, std::abs(exact[k]) / se);
      }
    }
  }
  return {miss, signal};
}

// Thousands of tiny passes: one thread, so that no pass waits for a second core.
struct OneThread {
  OneThread() : before(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~OneThread() { omp_set_num_threads(before); }
  int before;
};

}  // namespace

TEST_CASE("REINFORCE is unbiased in every variant that claims it: the mean of sampled gradients is the exact one") {
  OneThread one;
  struct Variant { const char* name; HardReward reward; HardBaseline baseline; };
  for (const Variant& v : {Variant{"sentence reward, moving baseline", HardReward::sentence, HardBaseline::moving},
                           Variant{"sentence reward, leave-one-out", HardReward::sentence, HardBaseline::others},
                           Variant{"position reward (γ = 1), moving per position", HardReward::position, HardBaseline::moving},
                           Variant{"position reward (γ = 1), leave-one-out", HardReward::position, HardBaseline::others}}) {
    CAPTURE(v.name);
    AttentionConfig config = kind_config(AttentionKind::hard);
    config.hard_reward = v.reward;
    config.hard_baseline = v.baseline;
    TinyHard tiny(/*batch=*/3, config);
    const std::vector<double> exact = exact_gradient(tiny);
    const auto [miss, signal] = misses(tiny, sampled_gradients(tiny, 3000), exact, /*check_all=*/true);
    // W_Q and W_K get no gradient through the sampled one-hot: only the score term carries theirs, so without it,
    // or with its sign flipped, these means would miss their exact gradients by many standard errors.
    MESSAGE(std::string(v.name), ": largest |exact| / standard error of W_Q, W_K: ", signal);
    CHECK(signal > 10);
  }
}

TEST_CASE("a discount γ < 1 is biased: position 0's choice also changes position 1's loss, which it then ignores") {
  OneThread one;
  AttentionConfig config = kind_config(AttentionKind::hard);
  config.hard_reward = HardReward::position;
  config.hard_discount = 0;
  TinyHard tiny(/*batch=*/3, config);
  const std::vector<double> exact = exact_gradient(tiny);
  const auto [miss, signal] = misses(tiny, sampled_gradients(tiny, 3000), exact, /*check_all=*/false);
  MESSAGE("γ = 0: largest |mean − exact| / standard error of W_Q, W_K: ", miss);
  CHECK(miss > 6);                                                           // far outside any 4σ interval
}

TEST_CASE("normalised advantages are not unbiased, but their mean gradient points where the exact one does") {
  OneThread one;
  AttentionConfig config = kind_config(AttentionKind::hard);
  config.hard_normalize = true;
  config.hard_baseline = HardBaseline::others;
  TinyHard tiny(/*batch=*/3, config);
  const std::vector<double> exact = exact_gradient(tiny);
  const Estimate e = sampled_gradients(tiny, 3000);
  double dot = 0, exact_sq = 0, mean_sq = 0;
  size_t k = 0;
  for (const NamedParameter& p : tiny.module->named_parameters())
    for (int64_t c = 0; c < p.tensor.numel(); ++c, ++k) {
      if (!p.name.starts_with("q_proj") && !p.name.starts_with("k_proj")) continue;
      dot += e.mean[k] * exact[k], exact_sq += exact[k] * exact[k], mean_sq += e.mean[k] * e.mean[k];
    }
  const double cosine = dot / std::sqrt(exact_sq * mean_sq);
  MESSAGE("cosine of the normalised estimate's mean and the exact gradient, W_Q and W_K: ", cosine);
  CHECK(cosine > 0.8);
}

TEST_CASE("a baseline must not move with its own sample's reward: A_b changes one for one with R_b") {
  // A_b = R_b − b_b is unbiased only if b_b ignores R_b. Raise one sentence's reward by δ and watch its advantage:
  // every baseline attnlab offers moves it by exactly δ; the batch mean including the sentence itself (the check
  // is run on it too, written here) moves it by δ (1 − 1/B), and the check catches that.
  const double delta = 0.75;
  for (HardReward reward : {HardReward::sentence, HardReward::position})
    for (HardBaseline kind : {HardBaseline::moving, HardBaseline::others}) {
      CAPTURE(name_of(reward));
      CAPTURE(name_of(kind));
      AttentionConfig config;
      config.hard_reward = reward, config.hard_baseline = kind;
      Rewards r{3, 2, {-1.0, -2.0, -0.5, -0.25, -3.0, 0.0}, {1, 1, 1, 1, 1, 0}, 5};
      RewardBaseline warm;
      advantages(r, 2, true, config, warm);                                 // a batch before: the moving b is set
      RewardBaseline copy = warm;
      const std::vector<double> before = advantages(r, 2, true, config, warm);
      r.log_p[1] += delta;                                                   // sentence 0, position 1
      const std::vector<double> after = advantages(r, 2, true, config, copy);
      CHECK(after[1] - before[1] == doctest::Approx(delta));                 // position 1 (and the sentence)
      CHECK(after[5] == 0);                                                  // padding: no advantage
    }
  auto self_including = [](const std::vector<double>& R) {                   // b = the mean of the whole batch
    std::vector<double> A;
    double mean = 0;
    for (double x : R) mean += x / double(R.size());
    for (double x : R) A.push_back(x - mean);
    return A;
  };
  const std::vector<double> before = self_including({-3, -2.75, -3}), after = self_including({-3 + delta, -2.75, -3});
  CHECK_FALSE(after[0] - before[0] == doctest::Approx(delta));               // the check would fail on it
}

TEST_CASE("rewards per position add up the rest of the sentence from the end, discounted; padding gets none") {
  AttentionConfig config;
  config.hard_reward = HardReward::position;
  config.hard_discount = 0.5;
  const Rewards r{2, 3, {-1, -2, -4, -1, -3, 0}, {1, 1, 1, 1, 1, 0}, 5};
  const std::vector<double> R = position_rewards(r, config);
  CHECK(R == std::vector<double>{-1 - 0.5 * (2 + 0.5 * 4), -2 - 0.5 * 4, -4, -1 - 0.5 * 3, -3, 0});
  config.hard_reward = HardReward::sentence;
  CHECK(position_rewards(r, config) == std::vector<double>{-7, -7, -7, -4, -4, 0});
  AttentionConfig encoder = kind_config(AttentionKind::hard);
  encoder.hard_reward = HardReward::position;
  CHECK_THROWS_WITH_AS(make(encoder, AttentionUse::encoder_self), doctest::Contains("hard_reward: position"), Error);
}

TEST_CASE("hard_clip scales the score term so that its gradient at the scores has norm hard_clip") {
  // Two modules with the same weights and the same draws, one clipped: the clipped term is the other times
  // c / ‖∂term/∂z‖, with ∂term/∂z computed here by autograd on a copy of the scores z.
  AttentionConfig plain = kind_config(AttentionKind::hard), clipped = plain;
  plain.hard_entropy = clipped.hard_entropy = 0.05;
  clipped.hard_clip = 1e-3;
  auto free = make(plain, AttentionUse::cross), held = make(clipped, AttentionUse::cross);
  Generator gen(41), draw_a(42), draw_b(42);
  const Tensor x = Tensor::randn({2, 3, 8}, gen), memory = Tensor::randn({2, 4, 8}, gen);
  const AttentionMask mask = make_length_mask({4, 3}, 3, 4, false);
  Keeper keeper, ignored;
  SampledChoices free_draws, held_draws;
  run(*free, x, memory, mask, keeper, &draw_a, &free_draws);
  run(*held, x, memory, mask, ignored, &draw_b, &held_draws);
  const Rewards r{2, 3, {-1, -2, -0.5, -3, -1, -2}, {1, 1, 1, 1, 1, 1}, 6};
  const double unclipped = term_of(free_draws, r).item(), held_term = term_of(held_draws, r).item();
  // ∂term/∂z by autograd: term(z) = −(1/N) Σ A log softmax(z)_s − (λ_e/N) Σ H(softmax(z)); the sentence reward,
  // the first batch's own mean as baseline: A_b = R_b − mean R.
  Tensor z = keeper.stages.at("scores").detach();
  for (int64_t n = 0; n < z.numel(); ++n) if (std::isinf(z.data()[n])) z.data()[n] = -1e9;   // hidden keys
  z.set_requires_grad(true);
  Tensor a = softmax(z);                                                     // [2, 2, 3, 4]
  const std::vector<int64_t> keys = chosen_keys(keeper.stages.at("chosen"));
  const double R0 = r.sentence(0), R1 = r.sentence(1), mean = (R0 + R1) / 2;
  Tensor weights = Tensor::zeros(a.shape());                                 // A_b / N at the sampled keys
  for (size_t row = 0; row < keys.size(); ++row) weights.data()[int64_t(row) * 4 + keys[row]] = real((row < 6 ? R0 : R1) - mean) / 6;
  Tensor zero = Tensor::zeros(a.shape());
  for (int64_t n = 0; n < a.numel(); ++n) zero.data()[n] = a.data()[n] < 1e-300 ? 1 : 0;
  Tensor log_a = log(add(a, zero));
  Tensor term = add(scale(sum(mul(weights, log_a)), -1), scale(sum(mul(a, log_a)), real(0.05 / 6)));
  CHECK(term.item() == doctest::Approx(unclipped).epsilon(1e-9));           // the same term, written out
  term.backward();
  double squares = 0;
  for (real g : z.grad_values()) squares += double(g) * g;
  CHECK(std::sqrt(squares) > 1e-3);                                          // so the clip really bites
  CHECK(held_term == doctest::Approx(unclipped * 1e-3 / std::sqrt(squares)).epsilon(1e-9));
}


TEST_CASE("the score term's sign: a sample rewarded above the baseline becomes likelier, one below less likely") {
  for (double advantage : {+1.0, -1.0}) {
    CAPTURE(advantage);
    TinyHard tiny(/*batch=*/1);
    Generator sampling(5);
    auto forward = [&](bool training, Keeper& keeper, SampledChoices* drawn = nullptr) {
      return run(*tiny.module, tiny.x, tiny.memory, tiny.mask, keeper, training ? &sampling : nullptr, drawn);
    };
    Keeper first;
    SampledChoices first_draws, drawn;
    forward(true, first, &first_draws);
    term_of(first_draws, tiny.rewards_all(-3.0));                            // sets the baseline b = −3
    Keeper sampled;
    forward(true, sampled, &drawn);
    auto sampled_key = [&](int64_t i) {                                     // the 1 in query i's row of the choice
      int64_t s = 0;
      while (sampled.stages.at("chosen").at({0, 0, i, s}) != 1) ++s;
      return s;
    };
    const int64_t s0 = sampled_key(0), s1 = sampled_key(1);
    const double a_before = sampled.stages.at("weights").at({0, 0, 0, s0});
    const double a_1 = sampled.stages.at("weights").at({0, 0, 1, s1});
    tiny.module->zero_grad();
    Tensor term = term_of(drawn, tiny.rewards_all(-3.0 + advantage));
    // −(R − b) log π(s), π(s) = a_{0, s0} · a_{1, s1}, b = −3: the sign the whole estimator hangs on.
    CHECK(term.item() == doctest::Approx(-advantage * (std::log(a_before) + std::log(a_1))).epsilon(1e-12));
    term.backward();
    for (NamedParameter p : tiny.module->named_parameters()) {              // one small gradient-descent step
      if (!p.tensor.has_grad()) continue;                                    // W_V, W_O: the term does not reach them
      for (int64_t c = 0; c < p.tensor.numel(); ++c) {
        p.tensor.data()[c] -= real(0.05) * p.tensor.grad_values()[static_cast<size_t>(c)];
      }
    }
    Keeper after;
    forward(false, after);
    const double pi_before = a_before * a_1;                                 // π(s) before and after the step
    const double pi_after = after.stages.at("weights").at({0, 0, 0, s0}) * after.stages.at("weights").at({0, 0, 1, s1});
    if (advantage > 0) CHECK(pi_after > pi_before);
    else CHECK(pi_after < pi_before);
  }
}

