// attention_test_support.h — helpers of the float64 tests of local and hard attention (f64_attention_local_hard.cpp,
// f64_hard_attention.cpp, f64_hard_estimators.cpp): a tracer-recorder that keeps every stage, a module of one kind,
// a forward pass, hard attention's chosen keys.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"

namespace attnlab::attention_test {

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

inline std::unique_ptr<Attention> make(const AttentionConfig& config, AttentionUse use, int64_t d_model = 8,
                                int64_t heads = 2, uint64_t seed = 5) {
  Generator init(seed);
  std::unique_ptr<Attention> module = make_attention(config, use, d_model, heads, /*dropout=*/0, init);
  module->name = "test.attn";
  return module;
}

inline AttentionConfig kind_config(AttentionKind kind, int64_t width = 2) {
  AttentionConfig config;
  config.kind = kind;
  config.local_width = width;
  return config;
}

inline Tensor parameter_named(const Attention& module, const std::string& name) {
  for (const NamedParameter& p : module.named_parameters()) {
    if (p.name == name) return p.tensor;
  }
  FAIL("no parameter called " << name);
  return Tensor();
}

// p_i of head `head`, query i, sentence b, as `attnlab trace` shows it (the stage "p_head<head>", [B, Tq]).
inline double centre_of(const Keeper& keeper, int64_t b, int64_t head, int64_t i) {
  return keeper.stages.at("p_head" + std::to_string(head)).at({b, i});
}

// A forward pass at evaluation (or training, with a generator) that keeps the stages and the map.
// With `drawn`, hard attention's draws and what they owe are left there (nn/sampled.h), as for the training step.
inline Tensor run(Attention& module, const Tensor& x, const Tensor& memory, const AttentionMask& mask, Keeper& keeper,
           Generator* training = nullptr, SampledChoices* drawn = nullptr) {
  ForwardContext ctx;
  ctx.tracer = &keeper;
  ctx.recorder = &keeper;
  ctx.training = training != nullptr;
  ctx.generator = training;
  ctx.sampled = drawn;
  return module.forward(x, memory, mask, ctx);
}

// The score-function term of what a forward drew, under `rewards` (as the step asks for it: train/step.cpp).
inline Tensor term_of(SampledChoices& drawn, const Rewards& rewards) {
  drawn.rewards = rewards;
  return score_function_loss(drawn);
}

inline double largest_difference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  double worst = 0;
  for (int64_t n = 0; n < a.numel(); ++n) worst = std::max(worst, std::abs(double(a.data()[n] - b.data()[n])));
  return worst;
}


// The one 1 of every row of the traced "chosen" [B, h, Tq, Tk] (−1: a row of 0s); CHECKs every row is 0s and one 1.
inline std::vector<int64_t> chosen_keys(const Tensor& chosen) {
  const int64_t Tk = chosen.size(3);
  std::vector<int64_t> keys;
  for (int64_t r = 0; r < chosen.numel() / Tk; ++r) {
    int64_t key = -1, ones = 0;
    for (int64_t j = 0; j < Tk; ++j) {
      const double w = chosen.data()[r * Tk + j];
      CHECK((std::abs(w) < 1e-12 || std::abs(w - 1) < 1e-12));
      if (std::abs(w - 1) < 1e-12) key = j, ++ones;
    }
    CHECK(ones <= 1);
    keys.push_back(key);
  }
  return keys;
}

}  // namespace attnlab::attention_test
