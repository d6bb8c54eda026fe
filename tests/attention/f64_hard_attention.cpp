// f64_hard_attention.cpp — facts about hard attention (src/attention/hard.cpp, hard_reward.cpp), in float64:
//   * its maps record the distribution a it draws from (entropy > 0), never the one-hot row; the key chosen is
//     traced, one per row, never hidden or future; at evaluation argmax, a sample, or the expectation (scaled_dot);
//   * every way it draws a key — inverse CDF (reinforce), Gumbel-max (gumbel_st), hard_eval: sample — draws from a;
//   * Gumbel-softmax straight-through forwards the one-hot row and backpropagates the relaxed softmax's gradient
//     (that softmax is gradient-checked: `attnlab gradcheck --op attention.gumbel_softmax`), so W_Q and W_K learn
//     from the loss itself;
//   * the model hands the rewards over only for hard attention, and only while training.
// The score function's own facts (unbiasedness of every variant, its sign, the baselines, hard_clip) are in
// f64_hard_estimators.cpp.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "attention/hard_estimators.h"
#include "attention_test_support.h"
#include "autograd/ops.h"
#include "model/transformer.h"
#include "tensor/parallel.h"
#include "util/error.h"

using namespace attnlab;
using namespace attnlab::attention_test;

TEST_CASE("hard attention's maps are the distribution a; the key chosen is traced beside it, one per row") {
  for (HardEstimator estimator : {HardEstimator::reinforce, HardEstimator::gumbel_st}) {
    AttentionConfig config = kind_config(AttentionKind::hard);
    config.hard_estimator = estimator;
    auto hard = make(config, AttentionUse::decoder_self);
    Generator gen(9), sampling(10);
    const Tensor x = Tensor::randn({2, 5, 8}, gen);
    const AttentionMask mask = make_length_mask({5, 3}, 5, 5, true);
    for (bool training : {true, false}) {
      CAPTURE(name_of(estimator));
      CAPTURE(training);
      Keeper keeper;
      run(*hard, x, x, mask, keeper, training ? &sampling : nullptr);
      REQUIRE(keeper.maps == 1);
      const Tensor& a = keeper.stages.at("weights");                        // the distribution a
      CHECK(largest_difference(keeper.map, a) == 0);                        // recorded as it is
      const std::vector<int64_t> keys = chosen_keys(keeper.stages.at("chosen"));
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t head = 0; head < 2; ++head)
          for (int64_t i = 0; i < (b == 0 ? 5 : 3); ++i) {
            const int64_t chosen = keys[static_cast<size_t>((b * 2 + head) * 5 + i)];
            REQUIRE(chosen >= 0);
            CHECK(chosen <= i);                                             // never a future key
            CHECK(a.at({b, head, i, chosen}) > 0);                          // never a hidden key
            double entropy = 0;
            int64_t best = 0;
            for (int64_t j = 0; j <= i; ++j) {
              entropy -= a.at({b, head, i, j}) * std::log(a.at({b, head, i, j}));
              if (a.at({b, head, i, j}) > a.at({b, head, i, best})) best = j;
            }
            if (i > 0) CHECK(entropy > 0.01);                               // not one key: a real distribution
            if (!training) CHECK(chosen == best);
          }
    }
  }
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

TEST_CASE("every way of drawing a key draws from a: inverse CDF, Gumbel-max, and hard_eval: sample") {
  struct Way { const char* name; HardEstimator estimator; HardEval eval; bool training; };
  for (const Way& way : {Way{"reinforce", HardEstimator::reinforce, HardEval::argmax, true},
                         Way{"gumbel_st", HardEstimator::gumbel_st, HardEval::argmax, true},
                         Way{"hard_eval: sample", HardEstimator::reinforce, HardEval::sample, false}}) {
    CAPTURE(way.name);
    AttentionConfig config = kind_config(AttentionKind::hard);
    config.hard_estimator = way.estimator;
    config.hard_eval = way.eval;
    auto hard = make(config, AttentionUse::cross, /*d_model=*/4, /*heads=*/1, /*seed=*/3);
    Generator gen(4), sampling(6);
    const Tensor x = scale(Tensor::randn({1, 1, 4}, gen), 2), memory = scale(Tensor::randn({1, 3, 4}, gen), 2);
    const AttentionMask mask = make_length_mask({3}, 1, 3, false);
    std::vector<double> counts(3, 0);
    Tensor a;
    const int draws = 4000;
    for (int n = 0; n < draws; ++n) {
      Keeper keeper;
      ForwardContext ctx;
      ctx.tracer = &keeper;
      ctx.training = way.training;
      ctx.generator = way.training ? &sampling : nullptr;                   // sample at evaluation: its own
      NoGradGuard no_graph;
      hard->forward(x, memory, mask, ctx);
      a = keeper.stages.at("weights");
      counts[static_cast<size_t>(chosen_keys(keeper.stages.at("chosen"))[0])] += 1;
    }
    for (int64_t j = 0; j < 3; ++j) {
      const double p = a.at({0, 0, 0, j}), seen = counts[static_cast<size_t>(j)] / draws;
      CAPTURE(j);
      CHECK(std::abs(seen - p) <= 4 * std::sqrt(p * (1 - p) / draws) + 1e-9);
    }
    CHECK(*std::min_element(counts.begin(), counts.end()) > 100);          // a real spread, not one key
  }
}

TEST_CASE("straight-through forwards the one-hot row and backpropagates the relaxed softmax's gradient") {
  Generator gen(21);
  const Tensor scores = Tensor::randn({1, 2, 3, 4}, gen, 1, /*requires_grad=*/true);
  const Tensor noise = Tensor::randn({1, 2, 3, 4}, gen);
  const AttentionMask mask = make_length_mask({3}, 3, 4, false);            // key 3 hidden
  const Tensor additive_mask = mask.additive(AttentionConfig{});
  const Tensor weights = Tensor::randn({1, 2, 3, 4}, gen);                  // L = Σ out ⊙ weights
  auto gradient = [&](bool straight) {
    scores.zero_grad();
    Tensor y = gumbel_softmax(scores, additive_mask, noise, 0.7);
    std::vector<int64_t> keys(6);
    for (int64_t r = 0; r < 6; ++r) keys[static_cast<size_t>(r)] = std::max_element(y.data() + r * 4, y.data() + r * 4 + 4) - (y.data() + r * 4);
    Tensor out = straight ? straight_through(y, keys) : y;
    if (straight) {
      for (int64_t r = 0; r < 6; ++r)
        for (int64_t j = 0; j < 4; ++j) CHECK(std::abs(out.data()[r * 4 + j] - (j == keys[static_cast<size_t>(r)] ? 1.0 : 0.0)) < 1e-12);
    }
    sum(mul(out, weights)).backward();
    return scores.grad_values();
  };
  const std::vector<real> relaxed = gradient(false), straight = gradient(true);
  double size = 0;
  for (size_t n = 0; n < relaxed.size(); ++n) {
    CHECK(straight[n] == doctest::Approx(relaxed[n]).epsilon(1e-12));
    size += std::abs(relaxed[n]);
  }
  CHECK(size > 0.1);
  for (int64_t r = 0; r < 6; ++r) CHECK(relaxed[static_cast<size_t>(r * 4 + 3)] == 0);   // the hidden key: none
}

TEST_CASE("gumbel_st: W_Q and W_K learn from the loss itself, and no score term is added") {
  AttentionConfig config = kind_config(AttentionKind::hard);
  config.hard_estimator = HardEstimator::gumbel_st;
  config.hard_entropy = 0;
  auto hard = make(config, AttentionUse::cross);
  Generator gen(31), sampling(32);
  const Tensor x = Tensor::randn({2, 3, 8}, gen), memory = Tensor::randn({2, 4, 8}, gen);
  Keeper keeper;
  SampledChoices drawn;
  hard->zero_grad();
  sum(run(*hard, x, memory, make_length_mask({4, 2}, 3, 4, false), keeper, &sampling, &drawn)).backward();
  for (const char* name : {"q_proj.weight", "k_proj.weight"}) {
    CAPTURE(name);
    double reach = 0;
    for (real g : parameter_named(*hard, name).grad_values()) reach += std::abs(g);
    CHECK(reach > 1e-6);
  }
  const Tensor term = term_of(drawn, Rewards{2, 3, std::vector<double>(6, -1.0), std::vector<uint8_t>(6, 1), 6});
  CHECK_FALSE(term.defined());                                               // λ_e = 0: nothing but the relaxation
}

TEST_CASE("the model measures rewards for hard attention's draws only, and only while training") {
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
    SampledChoices eval_draws;
    eval.sampled = &eval_draws;
    model.loss(src, tgt_in, targets, 0, eval);
    CHECK(eval_draws.choices.empty());                                       // evaluation: nothing to learn from
    CHECK_FALSE(score_function_loss(eval_draws).defined());
    ForwardContext training{/*training=*/true, &sampling, nullptr};
    SampledChoices drawn;
    training.sampled = &drawn;
    Tensor loss = model.loss(src, tgt_in, targets, 0, training);
    Tensor reinforce = score_function_loss(drawn);
    CHECK(reinforce.defined() == (kind == AttentionKind::hard));
    if (kind != AttentionKind::hard) continue;
    REQUIRE(drawn.choices.size() == 1);                                      // the one hard attention: cross
    CHECK(drawn.choices[0].by->path() == "decoder.layers.0.encoder_attn");
    CHECK(drawn.rewards.batch == 2);
    CHECK(drawn.rewards.tokens == 5);                                        // the real target tokens
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


TEST_CASE("hard_clean_reward: the reward's pass replays the keys drawn, without dropout, and leaves the loss alone") {
  // One training loss() and its score term, for a fresh model of the same seeds: (loss, term).
  auto run = [](double dropout, bool clean) {
    ModelConfig c;
    c.src_vocab = 11, c.tgt_vocab = 13, c.d_model = 8, c.heads = 2, c.d_ff = 16, c.dropout = dropout;
    c.encoder_layers = c.decoder_layers = 1;
    c.cross_attention.kind = AttentionKind::hard;
    c.cross_attention.hard_reward = HardReward::position;
    c.cross_attention.hard_entropy = 0;                                      // the term is the score function alone
    c.cross_attention.hard_clean_reward = clean;
    Generator init(1), sampling(2);
    Seq2Seq model(c, init);
    const TokenIds src{{3, 4}, {4, 5, 6, 7, 8, 9, 10, 3, 4, 5, 6, pad_id}};
    const TokenIds tgt_in{{3, 4}, {bos_id, 4, 5, 6, bos_id, 6, 7, 8, bos_id, 9, 10, 11}};
    const TokenIds targets{{3, 4}, {4, 5, 6, eos_id, 6, 7, 8, eos_id, 9, 10, 11, eos_id}};
    ForwardContext training{/*training=*/true, &sampling, nullptr};
    SampledChoices drawn;
    training.sampled = &drawn;
    const double loss = model.loss(src, tgt_in, targets, 0, training).item();
    const double term = score_function_loss(drawn).item();
    return std::pair<double, double>{loss, term};
  };
  // Without dropout the replayed pass is the training pass: the same rewards, so the same term. A pass that chose
  // its keys anew (a sample, or the argmax of these near-uniform rows) would change the rewards and the term.
  const auto [loss_0, term_0] = run(0, false);
  const auto [clean_loss_0, clean_term_0] = run(0, true);
  CHECK(clean_loss_0 == doctest::Approx(loss_0).epsilon(1e-12));
  CHECK(clean_term_0 == doctest::Approx(term_0).epsilon(1e-12));
  CHECK(std::abs(term_0) > 1e-6);                                            // a term that can tell them apart
  // With dropout the loss (and the generator's stream) is untouched by the extra pass, and the reward loses the
  // dropout noise, so the term changes.
  const auto [loss_half, term_half] = run(0.5, false);
  const auto [clean_loss_half, clean_term_half] = run(0.5, true);
  CHECK(clean_loss_half == doctest::Approx(loss_half).epsilon(1e-12));
  CHECK(std::abs(clean_term_half - term_half) > 1e-6);
}

TEST_CASE("hard_eval: sample decodes the same keys on one thread and on two") {
  // A step weighs its rows on several threads when the batch is large enough (cache.cpp); each row's sample must
  // come from a number drawn in row order, not from a generator the threads share (which gave another key per row,
  // and made `attnlab eval`'s sample figure change from run to run).
  AttentionConfig config = kind_config(AttentionKind::hard);
  config.hard_eval = HardEval::sample;
  const int64_t B = 64, Tk = 24, d_model = 64, heads = 4;                     // B·h·Tk·(d_k + d_v) = 393 K
  Generator gen(5);
  const Tensor memory = Tensor::randn({B, Tk, d_model}, gen), x = Tensor::randn({B, 1, d_model}, gen);
  auto decode = [&](int threads) {
    use_threads(threads);
    auto hard = make(config, AttentionUse::cross, d_model, heads, /*seed=*/7);   // its own generator, seeded 1
    NoGradGuard no_graph;
    AttentionCache cache = hard->start_cross_cache(memory, std::vector<uint8_t>(size_t(B * Tk), 1));
    return hard->step(x, std::vector<uint8_t>(size_t(B), 1), cache);        // [B, 1, d_model]
  };
  const Tensor one = decode(1), two = decode(2);
  use_threads(0);
  CHECK(largest_difference(one, two) == 0);
}
