// f64_attention_softmax.cpp — facts about the softmax kinds of attention (scaled_dot, additive, simplified,
// sagan) and about make_attention's refusals, in float64 so that "sums to 1" can be held to 1e-12.
// Their gradients are checked separately: `attnlab gradcheck --op attention.additive` and friends
// (src/attention/checks/softmax_kinds.cpp, run by f64_gradcheck.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "util/error.h"

using namespace attnlab;

namespace {

const std::vector<AttentionKind> softmax_kinds{AttentionKind::scaled_dot, AttentionKind::additive, AttentionKind::simplified, AttentionKind::sagan};

// Keeps every attention map it is handed, by name, and counts the calls.
class MapRecorder : public AttentionRecorder {
 public:
  void record(const std::string& name, const Tensor& weights) override {
    maps[name] = weights.detach();
    ++calls;
  }
  std::map<std::string, Tensor> maps;
  int calls = 0;
};

// key_lengths[b] real keys, then padding up to key_len.
AttentionMask make_mask(int64_t query_len, int64_t key_len, std::vector<int64_t> key_lengths, bool causal) {
  return make_length_mask(key_lengths, query_len, key_len, causal);
}

AttentionConfig config_of(AttentionKind kind) {
  AttentionConfig config;
  config.kind = kind;
  return config;
}

AttentionConfig with_window(AttentionConfig config, int64_t left, int64_t right) {
  config.has_window = true;
  config.window_left = left;
  config.window_right = right;
  return config;
}

std::unique_ptr<Attention> build(const AttentionConfig& config, AttentionUse use, int64_t d_model = 8,
                                 int64_t heads = 2, double dropout = 0) {
  Generator init(11);                                        // the same weights for the same sizes, every time
  std::unique_ptr<Attention> module = make_attention(config, use, d_model, heads, dropout, init);
  module->name = "test.attn";
  return module;
}

Tensor parameter(const Attention& module, const std::string& name) {
  for (const NamedParameter& p : module.named_parameters()) {
    if (p.name == name) return p.tensor;
  }
  FAIL("no parameter called " << name);
  return Tensor();
}

// Runs one forward (not training) and returns the recorded map [B, heads, Tq, Tk].
Tensor recorded_map(Attention& module, const Tensor& x, const Tensor& memory, const AttentionMask& mask) {
  MapRecorder recorder;
  ForwardContext ctx;
  ctx.recorder = &recorder;
  module.forward(x, memory, mask, ctx);
  REQUIRE(recorder.calls == 1);
  return recorder.maps.at(module.name);
}

// Which keys a query should see, written out again here rather than taken from AttentionMask::allowed(), so that
// a mistake in mask.cpp cannot hide itself: key j of sentence b is real (j < key_lengths[b]), not in the future
// when causal, and inside the window [i − left, i + right] when there is one.
struct Visibility {
  std::vector<int64_t> key_lengths;
  bool causal = false;
  int64_t left = -1, right = -1;  // a window when ≥ 0
  bool sees(int64_t b, int64_t i, int64_t j) const {
    if (j >= key_lengths[static_cast<size_t>(b)]) return false;            // padding
    if (causal && j > i) return false;                                     // the future
    if (left >= 0 && (j < i - left || j > i + right)) return false;        // outside the window
    return true;
  }
  AttentionMask mask(int64_t query_len, int64_t key_len) const {
    return make_mask(query_len, key_len, key_lengths, causal);
  }
  AttentionConfig config(AttentionKind kind) const {
    return left >= 0 ? with_window(config_of(kind), left, right) : config_of(kind);
  }
};

// Every row of the map: weight exactly 0 on a key the query may not see, > 0 on a key it may, and the visible
// weights sum to 1 — or, for a query that may see no key at all, a row of zeros.
void check_map_obeys(const Tensor& map, const Visibility& visible) {
  const int64_t B = map.size(0), H = map.size(1), Tq = map.size(2), Tk = map.size(3);
  REQUIRE(B == static_cast<int64_t>(visible.key_lengths.size()));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < Tq; ++i) {
        real total = 0;
        bool sees_a_key = false;
        for (int64_t j = 0; j < Tk; ++j) {
          INFO("batch ", b, ", head ", h, ", query ", i, ", key ", j);
          const real w = map.at({b, h, i, j});
          if (visible.sees(b, i, j)) {
            CHECK(w > 0);
            sees_a_key = true;
          } else {
            CHECK(w == 0);
          }
          total += w;
        }
        INFO("batch ", b, ", head ", h, ", query ", i);
        if (sees_a_key) CHECK(total == doctest::Approx(1).epsilon(1e-12));
        else CHECK(total == 0);
      }
}

}  // namespace

TEST_CASE("every softmax kind gives visible keys weights summing to 1 and hidden keys exactly 0") {
  struct Situation {
    const char* what;
    AttentionUse use;
    int64_t query_len, key_len;
    Visibility visible;
  };
  const std::vector<Situation> situations{
      {"self-attention, padding (lengths 5, 3)", AttentionUse::encoder_self, 5, 5, {{5, 3}}},
      {"causal self-attention, padding", AttentionUse::decoder_self, 5, 5, {{5, 3}, true}},
      {"cross-attention Tq 3, Tk 5, padding (lengths 5, 2)", AttentionUse::cross, 3, 5, {{5, 2}}},
      // Query 4 of sentence 1 may see keys 3 and 4 only, and both are padding: a row of zeros.
      {"window [1, 1], padding", AttentionUse::encoder_self, 5, 5, {{5, 3}, false, 1, 1}},
      {"window [2, 0], causal, padding", AttentionUse::decoder_self, 5, 5, {{5, 3}, true, 2, 0}},
  };
  Generator gen(3);
  for (AttentionKind kind : softmax_kinds)
    for (const Situation& s : situations) {
      INFO(name_of(kind), ": ", s.what);
      std::unique_ptr<Attention> module = build(s.visible.config(kind), s.use);
      Tensor x = Tensor::randn({2, s.query_len, 8}, gen);                     // [B, Tq, d_model]
      Tensor memory = s.use == AttentionUse::cross ? Tensor::randn({2, s.key_len, 8}, gen) : x;  // [B, Tk, d_model]
      Tensor map = recorded_map(*module, x, memory, s.visible.mask(s.query_len, s.key_len));  // [B, heads, Tq, Tk]
      const int64_t heads = kind == AttentionKind::sagan ? 1 : 2;
      CHECK(map.shape() == Shape{2, heads, s.query_len, s.key_len});
      check_map_obeys(map, s.visible);
    }
}

TEST_CASE("every softmax kind maps [B, Tq, d_model] queries to a [B, Tq, d_model] output") {
  Generator gen(4);
  for (AttentionKind kind : softmax_kinds) {
    INFO(name_of(kind));
    std::unique_ptr<Attention> self = build(config_of(kind), AttentionUse::encoder_self);
    std::unique_ptr<Attention> cross = build(config_of(kind), AttentionUse::cross);
    Tensor x = Tensor::randn({2, 3, 8}, gen);                                 // [B, Tq, d_model]
    Tensor memory = Tensor::randn({2, 5, 8}, gen);                            // [B, Tk, d_model]
    ForwardContext ctx;
    CHECK(self->forward(x, x, make_mask(3, 3, {3, 1}, false), ctx).shape() == Shape{2, 3, 8});
    CHECK(cross->forward(x, memory, make_mask(3, 5, {5, 2}, false), ctx).shape() == Shape{2, 3, 8});
  }
}

TEST_CASE("the map goes to the recorder once per forward, under the module's name, and nowhere without one") {
  Generator gen(5);
  for (AttentionKind kind : softmax_kinds) {
    INFO(name_of(kind));
    std::unique_ptr<Attention> module = build(config_of(kind), AttentionUse::encoder_self);
    module->name = "encoder.layers.0.self_attn";
    Tensor x = Tensor::randn({2, 4, 8}, gen);                                 // [B, T, d_model]
    AttentionMask mask = make_mask(4, 4, {4, 2}, false);
    MapRecorder recorder;
    ForwardContext ctx;
    ctx.recorder = &recorder;
    module->forward(x, x, mask, ctx);
    CHECK(recorder.calls == 1);
    CHECK(recorder.maps.count("encoder.layers.0.self_attn") == 1);

    ctx.recorder = nullptr;                                                   // inference without looking inside
    Tensor y = module->forward(x, x, mask, ctx);
    CHECK(recorder.calls == 1);
    CHECK(y.shape() == Shape{2, 4, 8});
  }
}

TEST_CASE("while training, dropout falls on the weights after the map is recorded") {
  Generator gen(6);
  const Visibility visible{{4, 3}};
  AttentionMask mask = visible.mask(4, 4);
  for (AttentionKind kind : softmax_kinds) {
    INFO(name_of(kind));
    std::unique_ptr<Attention> module = build(config_of(kind), AttentionUse::encoder_self, 8, 2, /*dropout=*/0.5);
    if (kind == AttentionKind::sagan) parameter(*module, "gamma").data()[0] = 1;           // else the output is 0 anyway
    Tensor x = Tensor::randn({2, 4, 8}, gen);                                 // [B, T, d_model]

    ForwardContext inference;
    Tensor y_inference = module->forward(x, x, mask, inference);              // dropout off

    MapRecorder recorder;
    Generator dropout_gen(7);
    ForwardContext training;
    training.training = true;
    training.generator = &dropout_gen;
    training.recorder = &recorder;
    Tensor y_training = module->forward(x, x, mask, training);

    check_map_obeys(recorder.maps.at(module->name), visible);                // rows still sum to 1
    bool differs = false;
    for (int64_t k = 0; k < y_training.numel(); ++k) differs |= y_training.data()[k] != y_inference.data()[k];
    CHECK(differs);
  }
}

TEST_CASE("SAGAN starts silent: γ = 0, so its output is exactly 0 and the block is the identity") {
  Generator gen(8);
  std::unique_ptr<Attention> module = build(config_of(AttentionKind::sagan), AttentionUse::encoder_self, 16);
  Tensor gamma = parameter(*module, "gamma");
  CHECK(gamma.shape() == Shape{1});
  CHECK(gamma.item() == 0);

  Tensor x = Tensor::randn({2, 3, 16}, gen);                                  // [B, T, d_model]
  AttentionMask mask = make_mask(3, 3, {3, 2}, false);
  ForwardContext ctx;
  Tensor y = module->forward(x, x, mask, ctx);                                // [B, T, d_model]
  for (real v : y.values()) CHECK(v == 0);

  // The gate scales the output: γ = 0.5 gives exactly half of γ = 1, and something non-zero.
  gamma.data()[0] = 1;
  Tensor y_open = module->forward(x, x, mask, ctx);
  gamma.data()[0] = real(0.5);
  Tensor y_half = module->forward(x, x, mask, ctx);
  bool non_zero = false;
  for (int64_t k = 0; k < y_open.numel(); ++k) {
    CHECK(y_half.data()[k] == doctest::Approx(0.5 * y_open.data()[k]).epsilon(1e-14));
    non_zero |= y_open.data()[k] != 0;
  }
  CHECK(non_zero);
}

TEST_CASE("each kind has the parameters its paper gives it, with PyTorch-style names") {
  auto names_and_shapes = [](const Attention& module) {
    std::map<std::string, Shape> out;
    for (const NamedParameter& p : module.named_parameters()) out[p.name] = p.tensor.shape();
    return out;
  };
  // d_model 16, 2 heads: d_k = 8; SAGAN's queries and keys have 16 / 8 = 2 features.
  auto additive = names_and_shapes(*build(config_of(AttentionKind::additive), AttentionUse::encoder_self, 16));
  CHECK(additive.size() == 9);                                                // {q,k,v,out}_proj.{weight,bias} + w
  CHECK(additive.at("score_proj.weight") == Shape{2, 8});                     // one w_h of d_k per head
  CHECK(additive.at("q_proj.weight") == Shape{16, 16});

  auto simplified = names_and_shapes(*build(config_of(AttentionKind::simplified), AttentionUse::encoder_self, 16));
  CHECK(simplified.size() == 2);                                              // no q, k, v projections
  CHECK(simplified.at("out_proj.weight") == Shape{16, 16});
  CHECK(simplified.at("out_proj.bias") == Shape{16});

  auto sagan = names_and_shapes(*build(config_of(AttentionKind::sagan), AttentionUse::encoder_self, 16));
  CHECK(sagan.size() == 7);                                                   // {q,k,v}_proj.{weight,bias} + γ
  CHECK(sagan.at("q_proj.weight") == Shape{2, 16});
  CHECK(sagan.at("k_proj.weight") == Shape{2, 16});
  CHECK(sagan.at("v_proj.weight") == Shape{16, 16});
  CHECK(sagan.at("gamma") == Shape{1});
  CHECK(sagan.count("out_proj.weight") == 0);
  // d_model / 8 rounds down but never to 0.
  auto tiny = names_and_shapes(*build(config_of(AttentionKind::sagan), AttentionUse::encoder_self, 4, 1));
  CHECK(tiny.at("q_proj.weight") == Shape{1, 4});
}

TEST_CASE("scale: false leaves the scores √d_k times larger than scale: true") {
  // Softmax forgets a constant per row, but not differences: log w_ij − log w_i0 = s_ij − s_i0. So the log-ratios
  // of the unscaled map are exactly √d_k times those of the scaled one.
  struct Kind {
    AttentionKind kind;
    int64_t d_model, heads;
    double root_d_k;
  };
  Generator gen(9);
  for (Kind k : {Kind{AttentionKind::scaled_dot, 8, 2, 2.0}, Kind{AttentionKind::scaled_dot, 8, 1, std::sqrt(8.0)},
                 Kind{AttentionKind::simplified, 8, 2, 2.0}, Kind{AttentionKind::sagan, 72, 2, 3.0}}) {    // sagan: d_k = 72 / 8 = 9
    INFO(name_of(k.kind), " with d_model ", k.d_model, ", ", k.heads, " heads");
    AttentionConfig scaled = config_of(k.kind), unscaled = config_of(k.kind);
    unscaled.scale = false;
    std::unique_ptr<Attention> a = build(scaled, AttentionUse::encoder_self, k.d_model, k.heads);
    std::unique_ptr<Attention> b = build(unscaled, AttentionUse::encoder_self, k.d_model, k.heads);  // same weights
    Tensor x = Tensor::randn({2, 4, k.d_model}, gen, real(0.5));              // [B, T, d_model]
    AttentionMask mask = make_mask(4, 4, {4, 4}, false);
    Tensor w_scaled = recorded_map(*a, x, x, mask);                           // [B, heads, T, T]
    Tensor w_unscaled = recorded_map(*b, x, x, mask);
    const int64_t heads = w_scaled.size(1);
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < 4; ++i)
          for (int64_t j = 1; j < 4; ++j) {
            double ratio_scaled = std::log(w_scaled.at({n, h, i, j}) / w_scaled.at({n, h, i, 0}));
            double ratio_unscaled = std::log(w_unscaled.at({n, h, i, j}) / w_unscaled.at({n, h, i, 0}));
            CHECK(ratio_unscaled == doctest::Approx(k.root_d_k * ratio_scaled).epsilon(1e-9));
          }
  }
}

TEST_CASE("additive attention has no √d_k: scale: false gives the same map") {
  Generator gen(10);
  AttentionConfig unscaled = config_of(AttentionKind::additive);
  unscaled.scale = false;
  std::unique_ptr<Attention> a = build(config_of(AttentionKind::additive), AttentionUse::encoder_self);
  std::unique_ptr<Attention> b = build(unscaled, AttentionUse::encoder_self);
  Tensor x = Tensor::randn({2, 4, 8}, gen);                                   // [B, T, d_model]
  AttentionMask mask = make_mask(4, 4, {4, 3}, false);
  CHECK(recorded_map(*a, x, x, mask).values() == recorded_map(*b, x, x, mask).values());
}

TEST_CASE("make_attention refuses what cannot work, and says what to do instead") {
  Generator init(12);
  auto make = [&](const AttentionConfig& config, AttentionUse use) {
    return make_attention(config, use, 8, 2, 0, init);
  };
  for (AttentionKind kind : {AttentionKind::linear, AttentionKind::external}) {
    INFO(name_of(kind));
    const std::string message = "model.attention.encoder.window: a window restricts a softmax over keys, and '" +
                                name_of(kind) + "' attention has none";
    CHECK_THROWS_WITH_AS(make(with_window(config_of(kind), 1, 1), AttentionUse::encoder_self),
                         doctest::Contains(message.c_str()), Error);
  }
  CHECK_THROWS_WITH_AS(make(config_of(AttentionKind::external), AttentionUse::cross),
                       doctest::Contains("model.attention.cross: external attention cannot be cross-attention"),
                       Error);
  // …while a window on every softmax kind is fine.
  for (AttentionKind kind : softmax_kinds) {
    INFO(name_of(kind));
    CHECK_NOTHROW(make(with_window(config_of(kind), 2, 0), AttentionUse::decoder_self));
  }
}
