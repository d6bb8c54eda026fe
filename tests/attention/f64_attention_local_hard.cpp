// f64_attention_local_hard.cpp — facts about local attention (local_m, local_p: src/attention/local.cpp) and hard
// attention (src/attention/hard.cpp), in float64.
//
// Their gradient checks are `attnlab gradcheck --op attention.local_m` / `attention.local_p`
// (src/attention/checks/local.cpp); the facts every kind must satisfy inside a model — causality, padding,
// batching, recorded maps, the KV cache — run for them in f64_model.cpp and f64_decode.cpp. Here:
//   * local_m as self-attention is scaled_dot with a window [D, D] (encoder) or [D, 0] (decoder);
//   * local_m's cross-attention centre is min(i, S − 1); local_p's is S · σ(v_pᵀ tanh(W_p x_i)), per head, and
//     its weights are the softmax over the window times the Gaussian, written out again here with loops;
//   * hard attention's maps have one key per row; at evaluation that key is the argmax of the soft weights;
//   * the score-function estimator is unbiased: on a model small enough to enumerate every sample, the mean of
//     many sampled gradients matches the exact gradient of the expected loss, within its confidence interval;
//   * the sign of the score term: a sample rewarded above the baseline becomes likelier, one below less likely;
//   * the model hands the rewards over only for hard attention, and only while training.
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "model/transformer.h"
#include "util/error.h"

using namespace attnlab;

namespace {

// Keeps the last value of every traced stage and every recorded map, by the end of its name ("p", "weights", …).
class Keeper : public Tracer, public AttentionRecorder {
 public:
  void trace(const std::string& name, const Tensor& value) override {
    stages[name.substr(name.rfind('.') + 1)] = value.detach();
  }
  void record(const std::string&, const Tensor& weights) override {
    map = weights.detach();
    ++maps;
  }
  std::map<std::string, Tensor> stages;
  Tensor map;
  int maps = 0;
};

std::unique_ptr<Attention> make(const AttentionConfig& config, AttentionUse use, int64_t d_model = 8,
                                int64_t heads = 2, uint64_t seed = 5) {
  Generator init(seed);
  std::unique_ptr<Attention> module = make_attention(config, use, d_model, heads, /*dropout=*/0, init);
  module->name = "test.attn";
  return module;
}

AttentionConfig kind_config(AttentionKind kind, int64_t width = 2) {
  AttentionConfig config;
  config.kind = kind;
  config.local_width = width;
  return config;
}

Tensor parameter_named(const Attention& module, const std::string& name) {
  for (const NamedParameter& p : module.named_parameters()) {
    if (p.name == name) return p.tensor;
  }
  FAIL("no parameter called " << name);
  return Tensor();
}

// p_i of head `head`, query i, sentence b, as `attnlab trace` shows it (the stage "p_head<head>", [B, Tq]).
double centre_of(const Keeper& keeper, int64_t b, int64_t head, int64_t i) {
  return keeper.stages.at("p_head" + std::to_string(head)).at({b, i});
}

// A forward pass at evaluation (or training, with a generator) that keeps the stages and the map.
Tensor run(Attention& module, const Tensor& x, const Tensor& memory, const AttentionMask& mask, Keeper& keeper,
           Generator* training = nullptr) {
  ForwardContext ctx;
  ctx.tracer = &keeper;
  ctx.recorder = &keeper;
  ctx.training = training != nullptr;
  ctx.generator = training;
  return module.forward(x, memory, mask, ctx);
}

double largest_difference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  double worst = 0;
  for (int64_t n = 0; n < a.numel(); ++n) worst = std::max(worst, std::abs(double(a.data()[n] - b.data()[n])));
  return worst;
}

}  // namespace

// ------------------------------------------------------------------ local attention

TEST_CASE("local_m as self-attention is scaled_dot with a window [D, D] (encoder) or [D, 0] (decoder)") {
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    const AttentionUse use = causal ? AttentionUse::decoder_self : AttentionUse::encoder_self;
    auto local = make(kind_config(AttentionKind::local_m, 2), use);
    AttentionConfig window = kind_config(AttentionKind::scaled_dot);
    window.has_window = true;
    window.window_left = 2;
    window.window_right = causal ? 0 : 2;
    auto scaled_dot = make(window, use, 8, 2, /*seed=*/99);                 // other weights, then copied over
    for (const NamedParameter& p : local->named_parameters()) parameter_named(*scaled_dot, p.name).values() = p.tensor.values();
    Generator gen(3);
    const Tensor x = Tensor::randn({2, 7, 8}, gen);
    const AttentionMask mask = make_length_mask({7, 5}, 7, 7, causal);
    Keeper a, b;
    const Tensor local_out = run(*local, x, x, mask, a);
    const Tensor window_out = run(*scaled_dot, x, x, mask, b);
    for (int64_t row : {0, 1})
      for (int64_t i = 0; i < (row == 0 ? 7 : 5); ++i)                      // the real queries
        for (int64_t c = 0; c < 8; ++c) CHECK(local_out.at({row, i, c}) == doctest::Approx(window_out.at({row, i, c})).epsilon(1e-12));
  }
  // And a window of D = 2 really is narrower than the whole sentence: the output differs from scaled_dot's.
  auto local = make(kind_config(AttentionKind::local_m, 2), AttentionUse::encoder_self);
  auto global = make(kind_config(AttentionKind::scaled_dot), AttentionUse::encoder_self);
  Generator gen(3);
  const Tensor x = Tensor::randn({1, 7, 8}, gen);
  const AttentionMask mask = make_length_mask({7}, 7, 7, false);
  Keeper a, b;
  CHECK(largest_difference(run(*local, x, x, mask, a), run(*global, x, x, mask, b)) > 1e-3);
}

TEST_CASE("local_m cross-attention centres on p_i = min(i, S − 1) and gives keys outside [p_i − D, p_i + D] weight 0") {
  auto local = make(kind_config(AttentionKind::local_m, 1), AttentionUse::cross);
  Generator gen(4);
  const Tensor x = Tensor::randn({2, 6, 8}, gen), memory = Tensor::randn({2, 4, 8}, gen);
  const std::vector<int64_t> lengths{4, 3};
  Keeper keeper;
  run(*local, x, memory, make_length_mask(lengths, 6, 4, false), keeper);
  REQUIRE(keeper.stages.at("p_head1").shape() == Shape{2, 6});             // [B, Tq], one stage per head
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t head = 0; head < 2; ++head)
      for (int64_t i = 0; i < 6; ++i) {
        const double centre = double(std::min<int64_t>(i, lengths[static_cast<size_t>(b)] - 1));
        CHECK(centre_of(keeper, b, head, i) == centre);
        double total = 0;
        for (int64_t j = 0; j < 4; ++j) {
          const double w = keeper.map.at({b, head, i, j});
          if (std::abs(double(j) - centre) > 1 || j >= lengths[static_cast<size_t>(b)]) CHECK(w == 0);
          total += w;
        }
        CHECK(total == doctest::Approx(1).epsilon(1e-12));                 // local_m: a plain softmax
      }
}

TEST_CASE("local_p: p_i = S · σ(v_pᵀ tanh(W_p x_i)) per head, and a_ij = softmax over the window × e^(−(j − p_i)²/2σ²)") {
  const int64_t D = 2, d_model = 8, heads = 2, d_k = 4;
  auto local = make(kind_config(AttentionKind::local_p, D), AttentionUse::cross, d_model, heads);
  const Tensor W_p = parameter_named(*local, "position_proj.weight");      // [d_model, d_model]
  Tensor v_p = parameter_named(*local, "position_score.weight");           // [heads, d_k]
  REQUIRE(W_p.shape() == Shape{d_model, d_model});
  REQUIRE(v_p.shape() == Shape{heads, d_k});
  Generator gen(6);
  for (real& w : v_p.values()) w *= 4;                                     // spread the centres over the source
  const Tensor x = Tensor::randn({2, 3, d_model}, gen), memory = Tensor::randn({2, 7, d_model}, gen);
  const std::vector<int64_t> lengths{7, 5};
  Keeper keeper;
  run(*local, x, memory, make_length_mask(lengths, 3, 7, false), keeper);
  const Tensor& scores = keeper.stages.at("scores");                        // [B, h, Tq, Tk], −∞ where hidden
  const double sigma = D / 2.0;
  double spread_low = 1e9, spread_high = -1e9;
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t head = 0; head < heads; ++head)
      for (int64_t i = 0; i < 3; ++i) {
        double z = 0;                                                       // v_p,hᵀ tanh(W_p,h x_i), by loops
        for (int64_t c = 0; c < d_k; ++c) {
          double hidden = 0;
          for (int64_t e = 0; e < d_model; ++e) hidden += W_p.at({head * d_k + c, e}) * x.at({b, i, e});
          z += v_p.at({head, c}) * std::tanh(hidden);
        }
        const double S = double(lengths[static_cast<size_t>(b)] - 1);
        const double centre = S / (1 + std::exp(-z));
        CHECK(centre_of(keeper, b, head, i) == doctest::Approx(centre).epsilon(1e-12));
        spread_low = std::min(spread_low, centre);
        spread_high = std::max(spread_high, centre);
        // softmax over the keys of the window (real, |j − p| ≤ D), times the Gaussian; nothing elsewhere.
        double max = -1e300, total = 0, row_sum = 0;
        for (int64_t j = 0; j < 7; ++j) {
          if (j < lengths[static_cast<size_t>(b)] && std::abs(j - centre) <= D) max = std::max(max, double(scores.at({b, head, i, j})));
        }
        for (int64_t j = 0; j < 7; ++j) {
          if (j < lengths[static_cast<size_t>(b)] && std::abs(j - centre) <= D) total += std::exp(scores.at({b, head, i, j}) - max);
        }
        for (int64_t j = 0; j < 7; ++j) {
          const bool inside = j < lengths[static_cast<size_t>(b)] && std::abs(j - centre) <= D;
          const double expected = inside ? std::exp(scores.at({b, head, i, j}) - max) / total *
                                               std::exp(-(j - centre) * (j - centre) / (2 * sigma * sigma))
                                         : 0.0;
          CHECK(keeper.map.at({b, head, i, j}) == doctest::Approx(expected).epsilon(1e-12));
          row_sum += keeper.map.at({b, head, i, j});
        }
        CHECK(row_sum <= 1 + 1e-12);                                         // not renormalised, as in the paper
        CHECK(row_sum >= std::exp(-2.0) - 1e-12);                            // every weight keeps ≥ e^(−D²/2σ²)
      }
  CHECK(spread_high - spread_low > 1);                                       // the centres really differ
}

TEST_CASE("local_p as decoder self-attention looks no later than i: S_i = i") {
  auto local = make(kind_config(AttentionKind::local_p, 1), AttentionUse::decoder_self);
  Generator gen(8);
  const Tensor x = Tensor::randn({1, 5, 8}, gen);
  Keeper keeper;
  run(*local, x, x, make_length_mask({5}, 5, 5, true), keeper);
  for (int64_t head = 0; head < 2; ++head)
    for (int64_t i = 0; i < 5; ++i) {
      const double p = centre_of(keeper, 0, head, i);
      CHECK(p >= 0);
      CHECK(p <= double(i));
      for (int64_t j = i + 1; j < 5; ++j) CHECK(keeper.map.at({0, head, i, j}) == 0);
    }
}

TEST_CASE("local attention refuses a `window` (it has local_width) and a local_width below 1") {
  AttentionConfig config = kind_config(AttentionKind::local_p, 2);
  config.has_window = true;
  CHECK_THROWS_WITH_AS(make(config, AttentionUse::cross), doctest::Contains("local_width"), Error);
  CHECK_THROWS_WITH_AS(make(kind_config(AttentionKind::local_m, 0), AttentionUse::cross), doctest::Contains("local_width"), Error);
}

// ------------------------------------------------------------------ hard attention

TEST_CASE("hard attention's maps have one key per row: sampled while training, the soft weights' argmax at evaluation") {
  auto hard = make(kind_config(AttentionKind::hard), AttentionUse::decoder_self);
  Generator gen(9), sampling(10);
  const Tensor x = Tensor::randn({2, 5, 8}, gen);
  const AttentionMask mask = make_length_mask({5, 3}, 5, 5, true);
  for (bool training : {true, false}) {
    CAPTURE(training);
    Keeper keeper;
    run(*hard, x, x, mask, keeper, training ? &sampling : nullptr);
    REQUIRE(keeper.maps == 1);
    const Tensor& soft = keeper.stages.at("weights");                       // the distribution a
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t head = 0; head < 2; ++head)
        for (int64_t i = 0; i < (b == 0 ? 5 : 3); ++i) {
          int ones = 0;
          int64_t chosen = -1, best = 0;
          for (int64_t j = 0; j < 5; ++j) {
            const double w = keeper.map.at({b, head, i, j});
            CHECK((w == 0 || w == 1));
            if (w == 1) ++ones, chosen = j;
            if (soft.at({b, head, i, j}) > soft.at({b, head, i, best})) best = j;
          }
          CHECK(ones == 1);
          CHECK(chosen <= i);                                               // never a future key
          CHECK(soft.at({b, head, i, chosen}) > 0);                         // never a hidden key
          if (!training) CHECK(chosen == best);
        }
  }
  hard->score_function_loss({0.0, 0.0}, 1.0);                               // leave nothing pending
}

TEST_CASE("hard attention with hard_eval: expectation is scaled_dot at evaluation") {
  AttentionConfig config = kind_config(AttentionKind::hard);
  config.hard_eval = HardEval::expectation;
  auto hard = make(config, AttentionUse::cross);
  auto soft = make(kind_config(AttentionKind::scaled_dot), AttentionUse::cross);          // the same seed: the same weights
  Generator gen(12);
  const Tensor x = Tensor::randn({2, 3, 8}, gen), memory = Tensor::randn({2, 4, 8}, gen);
  const AttentionMask mask = make_length_mask({4, 2}, 3, 4, false);
  Keeper a, b;
  CHECK(largest_difference(run(*hard, x, memory, mask, a), run(*soft, x, memory, mask, b)) < 1e-12);
}

namespace {

// The tiny model of the estimator test: one head, d_model 2, cross-attention from 2 queries to 3 keys, and the
// loss ℓ = ½ Σ (out − y)². Every joint sample s = (s_0, s_1) ∈ {0, 1, 2}² can be listed: 9 of them.
struct TinyHard {
  TinyHard() : gen(2026) {
    AttentionConfig config = kind_config(AttentionKind::hard);
    config.hard_entropy = 0;                                                // the estimator alone
    module = make(config, AttentionUse::cross, /*d_model=*/2, /*heads=*/1, /*seed=*/31);
    x = scale(Tensor::randn({1, 2, 2}, gen), 2);                             // queries [1, 2, 2]
    memory = scale(Tensor::randn({1, 3, 2}, gen), 2);                        // keys [1, 3, 2]
    y = Tensor::randn({1, 2, 2}, gen);                                       // the target of the loss
  }
  Tensor loss(const Tensor& out) const {                                     // ℓ = ½ Σ (out − y)², [1]
    Tensor error = sub(out, y);
    return scale(sum(mul(error, error)), 0.5);
  }
  // Every parameter's gradient, one vector, in named_parameters() order.
  std::vector<double> gradients() const {
    std::vector<double> all;
    for (const NamedParameter& p : module->named_parameters())
      for (real g : p.tensor.grad_values()) all.push_back(g);
    return all;
  }
  Generator gen;
  std::unique_ptr<Attention> module;
  Tensor x, memory, y;
  AttentionMask mask = make_length_mask({3}, 2, 3, false);
};

// The exact gradient of E_s[ℓ(s)] = Σ_s π(s) ℓ(s), written out again from the parameters (not through the
// module): a = softmax(Q Kᵀ / √d_k), π(s) = a_{0, s_0} a_{1, s_1}, out(s) = (v_{s_0}; v_{s_1}) W_Oᵀ + b_O.
std::vector<double> exact_gradient(TinyHard& tiny) {
  const Attention& m = *tiny.module;
  auto linear = [&](const std::string& name, const Tensor& in) {           // in W_nameᵀ + b_name
    return add(matmul(in, parameter_named(m, name + ".weight"), false, true), parameter_named(m, name + ".bias"));
  };
  tiny.module->zero_grad();
  Tensor Q = linear("q_proj", tiny.x), K = linear("k_proj", tiny.memory), V = linear("v_proj", tiny.memory);
  Tensor a = softmax(scale(matmul(Q, K, false, true), score_scale(2)));     // [1, 2, 3]
  Tensor expected;                                                          // Σ_s π(s) ℓ(s)
  for (int64_t s0 = 0; s0 < 3; ++s0)
    for (int64_t s1 = 0; s1 < 3; ++s1) {
      Tensor pick = Tensor::zeros({1, 2, 3});                               // the one-hot rows of s
      pick.data()[s0] = 1;
      pick.data()[3 + s1] = 1;
      Tensor a_s = sum(mul(a, pick), -1);                                   // [1, 2]: a_{0,s0}, a_{1,s1}
      Tensor pi = mul(slice(a_s, 1, 0, 1), slice(a_s, 1, 1, 2));            // [1, 1]
      Tensor term = mul(reshape(pi, {1}), tiny.loss(linear("out_proj", matmul(pick, V))));
      expected = expected.defined() ? add(expected, term) : term;
    }
  expected.backward();
  return tiny.gradients();
}

}  // namespace

TEST_CASE("REINFORCE is unbiased: the mean of sampled gradients matches the exact gradient of the expected loss") {
  // Thousands of tiny passes: one thread, so that no pass waits for a second core (restored at the end).
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(1);
  TinyHard tiny;
  const std::vector<double> exact = exact_gradient(tiny);
  const size_t n_params = exact.size();
  std::vector<double> total(n_params, 0), squares(n_params, 0);
  const int samples = 3000;
  Generator sampling(77);
  for (int n = 0; n < samples; ++n) {
    tiny.module->zero_grad();
    ForwardContext ctx{/*training=*/true, &sampling, nullptr};
    Tensor loss = tiny.loss(tiny.module->forward(tiny.x, tiny.memory, tiny.mask, ctx));   // ℓ(s), s sampled
    const double reward = -loss.item();                                      // R = log-likelihood = −ℓ
    add(loss, tiny.module->score_function_loss({reward}, 1.0)).backward();   // ∇ℓ − (R − b) ∇ log π
    const std::vector<double> g = tiny.gradients();
    for (size_t k = 0; k < n_params; ++k) total[k] += g[k], squares[k] += g[k] * g[k];
  }
  double largest_signal = 0;                                                 // |exact| / standard error, W_Q and W_K
  size_t k = 0;
  for (const NamedParameter& p : tiny.module->named_parameters()) {
    for (int64_t c = 0; c < p.tensor.numel(); ++c, ++k) {
      const double mean = total[k] / samples;
      const double variance = std::max(squares[k] / samples - mean * mean, 0.0);
      const double standard_error = std::sqrt(variance / samples);
      CAPTURE(p.name);
      CAPTURE(c);
      CAPTURE(exact[k]);
      CAPTURE(standard_error);
      CHECK(std::abs(mean - exact[k]) <= 4 * standard_error + 1e-12);        // within a 4σ interval
      if (p.name.starts_with("q_proj") || p.name.starts_with("k_proj"))
        largest_signal = std::max(largest_signal, std::abs(exact[k]) / (standard_error + 1e-300));
    }
  }
  // W_Q and W_K get no gradient at all through the sampled one-hot: only the score term carries theirs. So the
  // check above could fail — without that term, or with its sign flipped, these means would miss their exact
  // gradients by many standard errors.
  MESSAGE("largest |exact| / standard error of W_Q, W_K: ", largest_signal);
  CHECK(largest_signal > 10);
  omp_set_num_threads(threads_before);
}

TEST_CASE("the score term's sign: a sample rewarded above the baseline becomes likelier, one below less likely") {
  for (double advantage : {+1.0, -1.0}) {
    CAPTURE(advantage);
    TinyHard tiny;
    Generator sampling(5);
    auto forward = [&](bool training, Keeper& keeper) {
      return run(*tiny.module, tiny.x, tiny.memory, tiny.mask, keeper, training ? &sampling : nullptr);
    };
    Keeper first;
    forward(true, first);
    tiny.module->score_function_loss({-3.0}, 1.0);                          // sets the baseline b = −3
    Keeper sampled;
    forward(true, sampled);
    auto sampled_key = [&](int64_t i) {                                     // the 1 in query i's row of the map
      int64_t s = 0;
      while (sampled.map.at({0, 0, i, s}) != 1) ++s;
      return s;
    };
    const int64_t s0 = sampled_key(0), s1 = sampled_key(1);
    const double a_before = sampled.stages.at("weights").at({0, 0, 0, s0});
    const double a_1 = sampled.stages.at("weights").at({0, 0, 1, s1});
    tiny.module->zero_grad();
    Tensor term = tiny.module->score_function_loss({-3.0 + advantage}, 1.0);
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

TEST_CASE("the model hands rewards to its attention only for hard attention, and only while training") {
  for (AttentionKind kind : {AttentionKind::hard, AttentionKind::scaled_dot}) {
    CAPTURE(name_of(kind));
    ModelConfig c;
    c.src_vocab = 11, c.tgt_vocab = 13, c.d_model = 8, c.heads = 2, c.d_ff = 16, c.dropout = 0;
    c.encoder_layers = c.decoder_layers = 1;
    c.cross_attention.kind = kind;
    Generator init(1), sampling(2);
    Seq2Seq model(c, init);
    const TokenIds src{{2, 3}, {4, 5, 6, 7, 8, pad_id}}, tgt_in{{2, 3}, {bos_id, 4, 5, bos_id, 6, pad_id}};
    const TokenIds targets{{2, 3}, {4, 5, eos_id, 6, eos_id, pad_id}};
    ForwardContext eval;
    model.loss(src, tgt_in, targets, 0, eval);
    CHECK_FALSE(model.score_function_loss().defined());                      // evaluation: nothing to learn from
    ForwardContext training{/*training=*/true, &sampling, nullptr};
    Tensor loss = model.loss(src, tgt_in, targets, 0, training);
    Tensor reinforce = model.score_function_loss();
    CHECK(reinforce.defined() == (kind == AttentionKind::hard));
    if (kind != AttentionKind::hard) continue;
    CHECK_FALSE(model.score_function_loss().defined());                      // handed over once
    // The first batch sets the baseline to its own mean reward, so the term is (R_b − mean R) log π_b / N: it
    // reaches W_Q of the cross-attention, which the loss alone does not.
    add(loss, reinforce).backward();
    double reach = 0;
    for (const NamedParameter& p : model.named_parameters()) {
      if (p.name != "decoder.layers.0.encoder_attn.q_proj.weight") continue;
      for (real g : p.tensor.grad_values()) reach += std::abs(g);
    }
    CHECK(reach > 0);
  }
}
