// test_optim.cpp — facts about how parameters learn and how a run is saved (src/train/).
//
//   optimizer.h   Adam's first steps equal the formulas worked by hand; AdamW is Adam plus decoupled decay;
//                 Adam finds a quadratic's minimum; its state round-trips, or is refused naming what is wrong.
//   schedule.h    each schedule's value at chosen steps, worked from its formula.
//   clip.h        the global norm is returned and the gradients are scaled to max_norm.
//   checkpoint.h  a checkpoint restores weights, moments, step, generator and config; files that do not fit
//                 are refused with a message naming the file and the difference; keep_last keeps K files.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>

#include "model/transformer.h"
#include "tensor/safetensors.h"
#include "train/checkpoint.h"
#include "train/clip.h"
#include "train/optimizer.h"
#include "train/schedule.h"
#include "util/error.h"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

fs::path fresh_directory(const std::string& test_name) {
  fs::path directory = fs::path(ATTNLAB_BINARY_DIR) / "test_optim" / test_name;
  fs::remove_all(directory);
  fs::create_directories(directory);
  return directory;
}

std::vector<std::string> files_in(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string error_message(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.what();
  }
  FAIL("expected an attnlab::Error, but nothing was thrown");
  return "";
}

// One free-standing parameter, as the optimizer sees it.
NamedParameter parameter(const std::string& name, std::vector<real> values) {
  Shape shape{static_cast<int64_t>(values.size())};
  return {name, Tensor::from_values(shape, std::move(values), /*requires_grad=*/true)};
}

void set_grad(const NamedParameter& p, const std::vector<real>& g) {
  REQUIRE(static_cast<int64_t>(g.size()) == p.tensor.numel());
  std::copy(g.begin(), g.end(), p.tensor.grad());
}

OptimizerOptions adam(double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8) {
  OptimizerOptions options;
  options.kind = OptimizerKind::adam;
  options.beta1 = beta1;
  options.beta2 = beta2;
  options.eps = eps;
  return options;
}

// The tiny Transformer the checkpoint tests save and load.
ModelConfig tiny_model_config(int64_t d_model = 8) {
  ModelConfig config;
  config.src_vocab = 9;
  config.tgt_vocab = 9;
  config.d_model = d_model;
  config.heads = 2;
  config.d_ff = 16;
  config.encoder_layers = 1;
  config.decoder_layers = 1;
  return config;
}

// Deterministic, different gradients for every number of every parameter ("as if a batch had been seen").
void fill_gradients(const Module& model, int round) {
  int64_t k = 0;
  for (const NamedParameter& p : model.named_parameters()) {
    real* g = p.tensor.grad();
    for (int64_t j = 0; j < p.tensor.numel(); ++j, ++k) g[j] = static_cast<real>(std::sin(0.37 * k + round));
  }
}

}  // namespace

// ================================================= optimizer ================================================

TEST_CASE("Adam's first two steps on [1, -2] equal the formulas worked by hand") {
  // lr = 0.1, β₁ = 0.9, β₂ = 0.999, ε = 1e-8; gradients g₁ = [0.5, -1], then g₂ = [0.1, 0.3].
  // Step 1:  m = 0.1·g₁ = [0.05, -0.1]          v = 0.001·g₁² = [0.00025, 0.001]
  //          m̂ = m / (1 − 0.9) = [0.5, -1]      v̂ = v / (1 − 0.999) = [0.25, 1]
  //          p = p − 0.1 · m̂ / (√v̂ + ε) = [1 − 0.1·0.5/0.5, −2 + 0.1·1/1] = [0.9, −1.9]   (ε shifts the 9th digit)
  // Step 2:  m = 0.9·[0.05, -0.1] + 0.1·[0.1, 0.3] = [0.055, -0.06]
  //          v = 0.999·[0.00025, 0.001] + 0.001·[0.01, 0.09] = [0.00025975, 0.001089]
  //          m̂ = m / (1 − 0.81) = [0.289473684, -0.315789474]
  //          v̂ = v / (1 − 0.998001) = [0.129939970, 0.544772386],  √v̂ = [0.360471871, 0.738087005]
  //          p = [0.9 − 0.1·0.289473684/0.360471871, −1.9 + 0.1·0.315789474/0.738087005]
  //            = [0.9 − 0.080304094, −1.9 + 0.042784858] = [0.819695906, −1.857215142]
  NamedParameter p = parameter("p", {1, -2});
  Optimizer optimizer({p}, adam());
  CHECK(optimizer.steps() == 0);

  set_grad(p, {0.5f, -1});
  optimizer.step(0.1);
  CHECK(optimizer.steps() == 1);
  CHECK(p.tensor.values()[0] == doctest::Approx(0.9).epsilon(1e-6));
  CHECK(p.tensor.values()[1] == doctest::Approx(-1.9).epsilon(1e-6));
  std::vector<NamedTensor> state = optimizer.state_tensors();
  REQUIRE(state.size() == 2);
  CHECK(state[0].name == "optimizer.exp_avg.p");
  CHECK(state[1].name == "optimizer.exp_avg_sq.p");
  CHECK(state[0].tensor.values()[0] == doctest::Approx(0.05).epsilon(1e-6));
  CHECK(state[0].tensor.values()[1] == doctest::Approx(-0.1).epsilon(1e-6));
  CHECK(state[1].tensor.values()[0] == doctest::Approx(0.00025).epsilon(1e-6));
  CHECK(state[1].tensor.values()[1] == doctest::Approx(0.001).epsilon(1e-6));

  set_grad(p, {0.1f, 0.3f});
  optimizer.step(0.1);
  CHECK(optimizer.steps() == 2);
  CHECK(state[0].tensor.values()[0] == doctest::Approx(0.055).epsilon(1e-6));
  CHECK(state[1].tensor.values()[1] == doctest::Approx(0.001089).epsilon(1e-6));
  CHECK(p.tensor.values()[0] == doctest::Approx(0.819695906).epsilon(1e-6));
  CHECK(p.tensor.values()[1] == doctest::Approx(-1.857215142).epsilon(1e-6));
}

TEST_CASE("AdamW is Adam followed by the decoupled decay p ← p − lr·λ·p, on the value before the step") {
  const double lr = 0.05, lambda = 0.1;
  NamedParameter decayed = parameter("w", {1, -2, 3});
  NamedParameter by_hand = parameter("w", {1, -2, 3});
  OptimizerOptions adamw = adam();
  adamw.kind = OptimizerKind::adamw;
  adamw.weight_decay = lambda;
  Optimizer with_decay({decayed}, adamw);
  Optimizer without_decay({by_hand}, adam());

  const std::vector<std::vector<real>> gradients = {{0.3f, -0.2f, 0.1f}, {-0.5f, 0.4f, 0.2f}, {0.1f, 0.1f, -0.3f}};
  for (const std::vector<real>& g : gradients) {
    set_grad(decayed, g);
    set_grad(by_hand, g);
    with_decay.step(lr);
    // Adam's update does not depend on p, so decaying before or after it is the same: p − lr·λ·p − lr·m̂/(√v̂+ε).
    for (real& value : by_hand.tensor.values()) value -= static_cast<real>(lr * lambda) * value;
    without_decay.step(lr);
  }
  for (int j = 0; j < 3; ++j) {
    CHECK(decayed.tensor.values()[j] == doctest::Approx(by_hand.tensor.values()[j]).epsilon(1e-6));
  }
  // And the decay did something: without it the parameters would be elsewhere.
  NamedParameter plain = parameter("w", {1, -2, 3});
  Optimizer plain_adam({plain}, adam());
  for (const std::vector<real>& g : gradients) {
    set_grad(plain, g);
    plain_adam.step(lr);
  }
  CHECK(std::abs(plain.tensor.values()[2] - decayed.tensor.values()[2]) > 0.01);
}

TEST_CASE("Adam(W) on a large parameter, in chunks on every thread, gives each number the one-pass formula's bits") {
  // 40,003 numbers: two full 16 K chunks and an uneven tail, so the chunked loop's boundaries are crossed.
  const int64_t n = 40003;
  Generator random(5);
  std::vector<real> start(n), g1(n), g2(n);
  for (int64_t j = 0; j < n; ++j) {
    start[j] = static_cast<real>(random.normal());
    g1[j] = static_cast<real>(random.normal());
    g2[j] = static_cast<real>(0.01 * random.normal());
  }
  for (const bool decoupled : {false, true}) {
    CAPTURE(decoupled);
    OptimizerOptions options = adam();
    if (decoupled) {
      options.kind = OptimizerKind::adamw;
      options.weight_decay = 0.1;
    }
    NamedParameter p = parameter("w", start);
    Optimizer optimizer({p}, options);
    // The reference: the formula number by number, in the optimizer's order of operations and precision.
    std::vector<real> want = start, m(n, 0), v(n, 0);
    const double lr = 0.01;
    int t = 0;
    for (const std::vector<real>* g : {&g1, &g2}) {
      set_grad(p, *g);
      optimizer.step(lr);
      ++t;
      const real beta1 = static_cast<real>(options.beta1), beta2 = static_cast<real>(options.beta2);
      const real eps = static_cast<real>(options.eps), rate = static_cast<real>(lr);
      const real m_hat_scale = static_cast<real>(1 / (1 - std::pow(options.beta1, double(t))));
      const real v_hat_scale = static_cast<real>(1 / (1 - std::pow(options.beta2, double(t))));
      const real decay = static_cast<real>(lr * options.weight_decay);
      for (int64_t j = 0; j < n; ++j) {
        const real gj = (*g)[j];
        m[j] = beta1 * m[j] + (1 - beta1) * gj;
        v[j] = beta2 * v[j] + (1 - beta2) * (gj * gj);
        if (decay != 0) want[j] -= decay * want[j];
        want[j] -= rate * (m[j] * m_hat_scale) / (std::sqrt(v[j] * v_hat_scale) + eps);
      }
    }
    int64_t differ = 0;
    for (int64_t j = 0; j < n; ++j) differ += p.tensor.values()[j] != want[j];
    CHECK(differ == 0);
  }
}

TEST_CASE("Adam with weight_decay > 0 is refused at construction, pointing to adamw") {
  OptimizerOptions options = adam();
  options.weight_decay = 0.01;
  std::string message = error_message([&] { Optimizer optimizer({parameter("p", {1})}, options); });
  CHECK(message.find("weight_decay") != std::string::npos);
  CHECK(message.find("adamw") != std::string::npos);
}

TEST_CASE("Adam minimises a quadratic: ½·Σ aᵢ(pᵢ − cᵢ)² reaches its minimum c") {
  // Curvatures a differ by a factor of 100; Adam's per-number step size does not care.
  const std::vector<double> a = {0.1, 1, 10}, c = {3, -1, 0.5};
  NamedParameter p = parameter("p", {0, 0, 0});
  Optimizer optimizer({p}, adam());
  auto loss = [&] {
    double total = 0;
    for (int j = 0; j < 3; ++j) total += 0.5 * a[j] * std::pow(p.tensor.values()[j] - c[j], 2);
    return total;
  };
  const double initial_loss = loss();
  for (int step = 1; step <= 2000; ++step) {
    std::vector<real> g(3);
    for (int j = 0; j < 3; ++j) g[j] = static_cast<real>(a[j] * (p.tensor.values()[j] - c[j]));  // ∂loss/∂pⱼ
    set_grad(p, g);
    optimizer.step(step <= 1000 ? 0.05 : 0.005);
  }
  for (int j = 0; j < 3; ++j) CHECK(p.tensor.values()[j] == doctest::Approx(c[j]).epsilon(0.01));
  CHECK(loss() < initial_loss * 1e-4);
}

TEST_CASE("a parameter that has received no gradient is left alone by the step") {
  NamedParameter learned = parameter("learned", {1, 1});
  NamedParameter untouched = parameter("untouched", {5, 6});
  Optimizer optimizer({learned, untouched}, adam());
  set_grad(learned, {1, -1});
  optimizer.step(0.1);
  CHECK(learned.tensor.values()[0] != 1);
  CHECK(untouched.tensor.values() == std::vector<real>{5, 6});
  CHECK_FALSE(untouched.tensor.has_grad());  // the step did not make it a gradient either
}

TEST_CASE("optimizer state round-trips through named tensors, and a state for other parameters is refused") {
  NamedParameter a = parameter("a", {1, 2});
  NamedParameter b = parameter("b", {3, 4, 5});
  Optimizer original({a, b}, adam());
  set_grad(a, {0.1f, 0.2f});
  set_grad(b, {-0.3f, 0.4f, 0.5f});
  original.step(0.01);
  original.step(0.01);

  std::vector<NamedTensor> saved;
  for (const NamedTensor& t : original.state_tensors()) saved.push_back({t.name, t.tensor.detach()});

  Optimizer restored({a, b}, adam());
  restored.load_state(saved, original.steps());
  CHECK(restored.steps() == 2);
  for (size_t i = 0; i < saved.size(); ++i) {
    CHECK(restored.state_tensors()[i].tensor.values() == saved[i].tensor.values());
  }

  // The same step from both gives the same parameters.
  NamedParameter a2 = parameter("a", {1, 2});
  NamedParameter b2 = parameter("b", {3, 4, 5});
  Optimizer twin({a2, b2}, adam());
  twin.load_state(saved, 2);
  std::copy(a.tensor.values().begin(), a.tensor.values().end(), a2.tensor.values().begin());
  std::copy(b.tensor.values().begin(), b.tensor.values().end(), b2.tensor.values().begin());
  set_grad(a2, {0.1f, 0.2f});
  set_grad(b2, {-0.3f, 0.4f, 0.5f});
  original.step(0.01);
  twin.step(0.01);
  CHECK(a2.tensor.values() == a.tensor.values());
  CHECK(b2.tensor.values() == b.tensor.values());

  SUBCASE("a missing moment is named") {
    std::vector<NamedTensor> incomplete(saved.begin(), saved.end() - 1);  // no exp_avg_sq.b
    std::string message = error_message([&] { restored.load_state(incomplete, 2); });
    CHECK(message.find("missing: optimizer.exp_avg_sq.b") != std::string::npos);
  }
  SUBCASE("a moment of another shape is named with both shapes, and nothing is changed") {
    std::vector<NamedTensor> wrong = saved;
    wrong[1].tensor = Tensor::zeros({4});  // optimizer.exp_avg.b should be [3]
    std::vector<real> before = restored.state_tensors()[0].tensor.values();
    std::string message = error_message([&] { restored.load_state(wrong, 7); });
    CHECK(message.find("optimizer.exp_avg.b is [4]") != std::string::npos);
    CHECK(message.find("[3]") != std::string::npos);
    CHECK(message.find("missing") == std::string::npos);  // it is there, just the wrong shape
    CHECK(restored.steps() == 2);
    CHECK(restored.state_tensors()[0].tensor.values() == before);
  }
  SUBCASE("a moment for a parameter this optimizer does not have is named") {
    std::vector<NamedTensor> extra = saved;
    extra.push_back({"optimizer.exp_avg.c", Tensor::zeros({1})});
    std::string message = error_message([&] { restored.load_state(extra, 2); });
    CHECK(message.find("unexpected: optimizer.exp_avg.c") != std::string::npos);
  }
  SUBCASE("a long name from the file is named by a short prefix (found by fuzzing)") {
    std::vector<NamedTensor> extra = saved;
    extra.push_back({"optimizer.exp_avg." + std::string(3000, 'c'), Tensor::zeros({1})});
    std::string message = error_message([&] { restored.load_state(extra, 2); });
    CHECK(message.find("unexpected: optimizer.exp_avg.ccc") != std::string::npos);
    CHECK_MESSAGE(message.size() < 400, message);
  }
}

// ================================================= schedule =================================================

TEST_CASE("noam: lr · d^−½ · min(s^−½, s·w^−³ᐟ²) grows linearly to its peak at s = warmup, then falls as 1/√s") {
  TrainConfig config;
  config.schedule = ScheduleKind::noam;
  config.lr = 1;
  config.warmup_steps = 4000;
  const int64_t d = 512;
  // The paper's setting peaks at 1/√512 · 1/√4000 = 6.98771e-4.
  const double peak = learning_rate(config, 4000, d);
  CHECK(peak == doctest::Approx(6.987712429686842e-4).epsilon(1e-12));
  CHECK(learning_rate(config, 3999, d) < peak);
  CHECK(learning_rate(config, 4001, d) < peak);
  CHECK(learning_rate(config, 1, d) == doctest::Approx(peak / 4000).epsilon(1e-12));  // linear warm-up
  CHECK(learning_rate(config, 2000, d) == doctest::Approx(peak / 2).epsilon(1e-12));
  CHECK(learning_rate(config, 16000, d) == doctest::Approx(peak / 2).epsilon(1e-12));  // 1/√s: ×4 steps, ½
  // lr multiplies the whole curve:
  config.lr = 2;
  CHECK(learning_rate(config, 4000, d) == doctest::Approx(2 * peak).epsilon(1e-12));
}

TEST_CASE("inverse_sqrt: lr · min(s/w, √(w/s)) peaks at exactly lr at s = warmup") {
  TrainConfig config;
  config.schedule = ScheduleKind::inverse_sqrt;
  config.lr = 5e-4;
  config.warmup_steps = 100;
  CHECK(learning_rate(config, 100, 64) == doctest::Approx(5e-4).epsilon(1e-12));
  CHECK(learning_rate(config, 50, 64) == doctest::Approx(2.5e-4).epsilon(1e-12));
  CHECK(learning_rate(config, 400, 64) == doctest::Approx(2.5e-4).epsilon(1e-12));
  config.warmup_steps = 0;
  CHECK(error_message([&] { learning_rate(config, 1, 64); }).find("train.warmup_steps") != std::string::npos);
}

TEST_CASE("constant: lr · min(1, s/w), and plain lr with no warm-up") {
  TrainConfig config;
  config.schedule = ScheduleKind::constant;
  config.lr = 0.001;
  config.warmup_steps = 10;
  CHECK(learning_rate(config, 5, 8) == doctest::Approx(0.0005).epsilon(1e-12));
  CHECK(learning_rate(config, 10, 8) == doctest::Approx(0.001).epsilon(1e-12));
  CHECK(learning_rate(config, 1000, 8) == doctest::Approx(0.001).epsilon(1e-12));
  config.warmup_steps = 0;
  CHECK(learning_rate(config, 1, 8) == doctest::Approx(0.001).epsilon(1e-12));
}

TEST_CASE("cosine: warm-up to lr, half of lr halfway through the decay, 0 at max_steps") {
  TrainConfig config;
  config.schedule = ScheduleKind::cosine;
  config.lr = 0.01;
  config.warmup_steps = 100;
  config.max_steps = 1100;
  CHECK(learning_rate(config, 50, 8) == doctest::Approx(0.005).epsilon(1e-12));
  CHECK(learning_rate(config, 100, 8) == doctest::Approx(0.01).epsilon(1e-12));
  CHECK(learning_rate(config, 600, 8) == doctest::Approx(0.005).epsilon(1e-12));  // cos(π/2) = 0
  CHECK(learning_rate(config, 350, 8) == doctest::Approx(0.01 * 0.5 * (1 + std::sqrt(0.5))).epsilon(1e-12));
  CHECK(learning_rate(config, 1100, 8) == 0.0);
  CHECK(learning_rate(config, 1099, 8) > 0.0);
  CHECK(learning_rate(config, 5000, 8) == 0.0);
}

TEST_CASE("step 0 is refused: steps count from 1") {
  TrainConfig config;
  config.schedule = ScheduleKind::noam;
  CHECK(error_message([&] { learning_rate(config, 0, 8); }).find("step 0") != std::string::npos);
}

// ================================================= clipping =================================================

TEST_CASE("clip_grad_norm returns the global norm and scales every gradient to max_norm") {
  // Gradients [3, 4] and [0, 12]: ‖g‖ = √(9 + 16 + 144) = 13.
  NamedParameter a = parameter("a", {0, 0});
  NamedParameter b = parameter("b", {0, 0});
  NamedParameter no_grad = parameter("c", {0});
  std::vector<NamedParameter> parameters = {a, b, no_grad};

  SUBCASE("above max_norm: scaled by max_norm / (13 + 1e-6)") {
    set_grad(a, {3, 4});
    set_grad(b, {0, 12});
    CHECK(clip_grad_norm(parameters, 6.5) == doctest::Approx(13).epsilon(1e-12));
    CHECK(a.tensor.grad_values()[0] == doctest::Approx(1.5).epsilon(1e-6));
    CHECK(a.tensor.grad_values()[1] == doctest::Approx(2).epsilon(1e-6));
    CHECK(b.tensor.grad_values()[1] == doctest::Approx(6).epsilon(1e-6));
    CHECK(clip_grad_norm(parameters, 0) == doctest::Approx(6.5).epsilon(1e-6));  // the new norm is max_norm
    CHECK_FALSE(no_grad.tensor.has_grad());
  }
  SUBCASE("below max_norm, or max_norm ≤ 0: untouched, and the norm is still returned") {
    set_grad(a, {3, 4});
    set_grad(b, {0, 12});
    CHECK(clip_grad_norm(parameters, 20) == doctest::Approx(13).epsilon(1e-12));
    CHECK(clip_grad_norm(parameters, 0) == doctest::Approx(13).epsilon(1e-12));
    CHECK(clip_grad_norm(parameters, -1) == doctest::Approx(13).epsilon(1e-12));
    CHECK(a.tensor.grad_values() == std::vector<real>{3, 4});
  }
  SUBCASE("a non-finite norm is returned as it is, the gradients untouched") {
    set_grad(a, {3, std::numeric_limits<real>::infinity()});
    set_grad(b, {0, 12});
    CHECK(std::isinf(clip_grad_norm(parameters, 1)));
    CHECK(b.tensor.grad_values() == std::vector<real>{0, 12});
    set_grad(a, {std::numeric_limits<real>::quiet_NaN(), 0});
    CHECK(std::isnan(clip_grad_norm(parameters, 1)));
  }
}

// ================================================ checkpoints ===============================================

TEST_CASE("a checkpoint restores weights, optimizer moments and step, generator, config, best metric and extras") {
  fs::path directory = fresh_directory("round_trip");
  const std::string path = (directory / "run.safetensors").string();

  Generator init(1);
  Seq2Seq model(tiny_model_config(), init);
  Optimizer optimizer(model.named_parameters(), adam(0.9, 0.98, 1e-9));
  for (int round = 0; round < 3; ++round) {
    fill_gradients(model, round);
    optimizer.step(1e-2);
  }
  Generator generator(42);
  for (int i = 0; i < 5; ++i) generator.normal();  // an odd number of normals: a spare one is pending

  CheckpointState state;
  state.step = 3;
  state.config_yaml = "model:\n  d_model: 8\ntrain:\n  lr: 0.01  # a comment\n";
  state.generator_state = generator.state();
  state.best_metric = 0.1 + 0.2;  // not exactly 0.3: the text must keep every bit
  state.extra["epoch"] = "2";
  save_checkpoint(path, model, optimizer, state);

  // What an uninterrupted run would draw and hold next.
  std::vector<double> next_draws;
  for (int i = 0; i < 4; ++i) next_draws.push_back(generator.normal());
  std::vector<NamedParameter> saved_parameters;
  for (const NamedParameter& p : model.named_parameters()) saved_parameters.push_back({p.name, p.tensor.detach()});
  std::vector<NamedTensor> saved_moments;
  for (const NamedTensor& t : optimizer.state_tensors()) saved_moments.push_back({t.name, t.tensor.detach()});

  // A fresh model from another seed, a fresh optimizer, a fresh generator: all different until loaded.
  Generator other_init(99);
  Seq2Seq resumed(tiny_model_config(), other_init);
  std::vector<Tensor> handles = resumed.parameters();  // held across the load: must see the loaded values
  Optimizer resumed_optimizer(resumed.named_parameters(), adam(0.9, 0.98, 1e-9));
  CHECK(resumed.named_parameters()[0].tensor.values() != saved_parameters[0].tensor.values());

  CheckpointState loaded = load_checkpoint(path, resumed, &resumed_optimizer);
  CHECK(loaded.step == 3);
  CHECK(loaded.config_yaml == state.config_yaml);
  CHECK(loaded.best_metric == state.best_metric);
  CHECK(loaded.extra == state.extra);
  CHECK(resumed_optimizer.steps() == 3);

  std::vector<NamedParameter> parameters = resumed.named_parameters();
  REQUIRE(parameters.size() == saved_parameters.size());
  for (size_t i = 0; i < parameters.size(); ++i) {
    CHECK(parameters[i].name == saved_parameters[i].name);
    CHECK(parameters[i].tensor.values() == saved_parameters[i].tensor.values());
    CHECK(handles[i].values() == saved_parameters[i].tensor.values());
  }
  std::vector<NamedTensor> moments = resumed_optimizer.state_tensors();
  REQUIRE(moments.size() == saved_moments.size());
  for (size_t i = 0; i < moments.size(); ++i) {
    CHECK(moments[i].name == saved_moments[i].name);
    CHECK(moments[i].tensor.values() == saved_moments[i].tensor.values());
  }

  Generator restored_generator(12345);
  restored_generator.set_state(loaded.generator_state);
  for (int i = 0; i < 4; ++i) CHECK(restored_generator.normal() == next_draws[i]);

  // And the next step from both gives bit-identical weights.
  fill_gradients(model, 3);
  fill_gradients(resumed, 3);
  optimizer.step(1e-2);
  resumed_optimizer.step(1e-2);
  CHECK(model.named_parameters()[0].tensor.values() == resumed.named_parameters()[0].tensor.values());

  // Loading without an optimizer (to translate) restores the weights alone.
  Generator third_init(5);
  Seq2Seq weights_only(tiny_model_config(), third_init);
  load_checkpoint(path, weights_only, nullptr);
  CHECK(weights_only.named_parameters()[3].tensor.values() == saved_parameters[3].tensor.values());
}

TEST_CASE("a checkpoint for a model with another d_model is refused, naming a parameter and both shapes") {
  fs::path directory = fresh_directory("other_shape");
  const std::string path = (directory / "small.safetensors").string();
  Generator init(1);
  Seq2Seq small(tiny_model_config(8), init);
  Optimizer optimizer(small.named_parameters(), adam());
  save_checkpoint(path, small, optimizer, CheckpointState{});

  Seq2Seq wider(tiny_model_config(16), init);
  Optimizer wider_optimizer(wider.named_parameters(), adam());
  std::vector<real> before = wider.named_parameters()[0].tensor.values();
  std::string message = error_message([&] { load_checkpoint(path, wider, &wider_optimizer); });
  CAPTURE(message);
  CHECK(message.find(path) == 0);
  CHECK(message.find("is [16, 16] here but [8, 8] in the checkpoint") != std::string::npos);
  CHECK(message.find("self_attn.q_proj.weight") != std::string::npos);
  // Many more than five parameters differ; five are listed, then "and 38 more".
  CHECK(message.find("more") != std::string::npos);
  CHECK(wider.named_parameters()[0].tensor.values() == before);  // nothing was changed
  CHECK(wider_optimizer.steps() == 0);

  SUBCASE("a model with an extra layer: its parameters are missing from the checkpoint") {
    ModelConfig deeper_config = tiny_model_config(8);
    deeper_config.encoder_layers = 2;
    Seq2Seq deeper(deeper_config, init);
    message = error_message([&] { load_checkpoint(path, deeper, nullptr); });
    CHECK(message.find("missing: encoder.layers.1.") != std::string::npos);
  }
  SUBCASE("a model with one layer fewer: the checkpoint has unexpected tensors") {
    ModelConfig deeper_config = tiny_model_config(8);
    deeper_config.encoder_layers = 2;
    Seq2Seq deeper(deeper_config, init);
    Optimizer deeper_optimizer(deeper.named_parameters(), adam());
    const std::string deep_path = (directory / "deep.safetensors").string();
    save_checkpoint(deep_path, deeper, deeper_optimizer, CheckpointState{});
    message = error_message([&] { load_checkpoint(deep_path, small, nullptr); });
    CHECK(message.find("unexpected: encoder.layers.1.") != std::string::npos);
  }
}

TEST_CASE("a truncated checkpoint is refused with a message naming the file") {
  fs::path directory = fresh_directory("truncated");
  const std::string path = (directory / "whole.safetensors").string();
  const std::string cut_path = (directory / "cut.safetensors").string();
  Generator init(1);
  Seq2Seq model(tiny_model_config(), init);
  Optimizer optimizer(model.named_parameters(), adam());
  save_checkpoint(path, model, optimizer, CheckpointState{});

  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  for (size_t keep : {bytes.str().size() / 2, bytes.str().size() - 1, size_t{100}, size_t{5}}) {
    std::ofstream(cut_path, std::ios::binary | std::ios::trunc) << bytes.str().substr(0, keep);
    std::string message = error_message([&] { load_checkpoint(cut_path, model, &optimizer); });
    CAPTURE(keep);
    CAPTURE(message);
    CHECK(message.find(cut_path) == 0);
  }
  std::string missing = (directory / "never_written.safetensors").string();
  CHECK(error_message([&] { load_checkpoint(missing, model, &optimizer); }).find(missing) == 0);
}

TEST_CASE("a safetensors file without attnlab's format metadata is refused as not an attnlab checkpoint") {
  fs::path directory = fresh_directory("not_ours");
  const std::string path = (directory / "weights.safetensors").string();
  Generator init(1);
  Seq2Seq model(tiny_model_config(), init);
  std::vector<NamedTensor> weights;
  for (const NamedParameter& p : model.named_parameters()) weights.push_back({p.name, p.tensor});
  save_safetensors(path, weights);  // the right tensors, but no "format": someone's exported weights

  std::string message = error_message([&] { load_checkpoint(path, model, nullptr); });
  CHECK(message.find(path) == 0);
  CHECK(message.find("is a safetensors file but not an attnlab checkpoint") != std::string::npos);

  save_safetensors(path, weights, {{"format", "pt"}});
  message = error_message([&] { load_checkpoint(path, model, nullptr); });
  CHECK(message.find("not an attnlab checkpoint") != std::string::npos);
  CHECK(message.find("\"pt\"") != std::string::npos);
}

TEST_CASE("a checkpoint directory keeps the last keep_last step files plus best, and no temporary files") {
  fs::path directory = fresh_directory("directory") / "checkpoints";  // created by CheckpointDirectory
  Generator init(1);
  Seq2Seq model(tiny_model_config(), init);
  Optimizer optimizer(model.named_parameters(), adam());
  CheckpointDirectory checkpoints(directory.string(), 2);
  CHECK_FALSE(checkpoints.latest().has_value());
  CHECK(checkpoints.step_path(1234) == (directory / "step-00001234.safetensors").string());

  CheckpointState state;
  for (int64_t step : {500, 1000, 1500, 2000, 2500}) {
    state.step = step;
    CHECK(checkpoints.save_step(model, optimizer, state) == checkpoints.step_path(step));
    if (step == 1500) checkpoints.save_best(model, optimizer, state);
  }
  CHECK(files_in(directory) ==
        std::vector<std::string>{"best.safetensors", "step-00002000.safetensors", "step-00002500.safetensors"});
  REQUIRE(checkpoints.latest().has_value());
  CHECK(*checkpoints.latest() == (directory / "step-00002500.safetensors").string());
  CHECK(load_checkpoint(checkpoints.best_path(), model, nullptr).step == 1500);
  CHECK(load_checkpoint(*checkpoints.latest(), model, nullptr).step == 2500);

  CHECK(error_message([&] { CheckpointDirectory none(directory.string(), 0); }).find("train.keep_last") !=
        std::string::npos);
}
