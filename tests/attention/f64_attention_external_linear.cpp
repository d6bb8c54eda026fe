// f64_attention_external_linear.cpp — facts about external attention, linear attention and their op,
// prefix_softmax (float64, so that "equal to 1e-12" means the same computation, not a lucky rounding).
//
// The gradients are checked against finite differences in checks/attention_external_linear.cpp; these tests pin
// down what the forward pass computes: the paper's formula, the masks (padding changes nothing, the future is
// invisible bit for bit), the recorded maps.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"

using namespace attnlab;

namespace {

constexpr real hidden = -std::numeric_limits<real>::infinity();
constexpr int64_t d_model = 8, heads = 2, d_k = 4, slots = 5;

std::unique_ptr<Attention> build(AttentionKind kind, AttentionUse use, uint64_t seed = 11) {
  AttentionConfig config;
  config.kind = kind;
  config.memory_slots = slots;
  Generator init(seed);
  auto module = make_attention(config, use, d_model, heads, /*dropout=*/0, init);
  module->name = name_of(kind);
  return module;
}

// B sentences of real key lengths `lengths`, the rest of key_len padding.
AttentionMask lengths_mask(const std::vector<int64_t>& lengths, int64_t query_len, int64_t key_len, bool causal) {
  return make_length_mask(lengths, query_len, key_len, causal);
}

Tensor run(Attention& attention, const Tensor& x, const Tensor& memory, const AttentionMask& mask,
           AttentionRecorder* recorder = nullptr) {
  ForwardContext ctx;
  ctx.recorder = recorder;
  return attention.forward(x, memory, mask, ctx);
}

// y[b, 0:positions, :] as a flat list.
std::vector<real> first_positions(const Tensor& y, int64_t b, int64_t positions) {
  const int64_t T = y.size(1), d = y.size(2);
  const real* start = y.data() + b * T * d;
  return {start, start + positions * d};
}

// x [1, T, d] → [B, T_padded, d] rows of a batch: copies sentence `s` into position b, the rest stays as is.
void put_sentence(Tensor& batch, int64_t b, const Tensor& sentence) {
  const int64_t T = batch.size(1), d = batch.size(2);
  std::copy(sentence.data(), sentence.data() + sentence.numel(), batch.data() + b * T * d);
}

class StoringRecorder : public AttentionRecorder {
 public:
  void record(const std::string& name, const Tensor& weights) override {
    ++calls;
    last_name = name;
    last = weights;
  }
  int calls = 0;
  std::string last_name;
  Tensor last;
};

// ---- The formulas, with plain loops over plain numbers ----

Tensor parameter(const Attention& attention, const std::string& name) {
  for (const NamedParameter& p : attention.named_parameters()) {
    if (p.name == name) return p.tensor;
  }
  FAIL("no parameter " << name);
  return Tensor();
}

// y = W x + b for one position: W [out, in], x [in].
std::vector<double> affine(const Tensor& W, const Tensor& b, const std::vector<double>& x) {
  const int64_t out = W.size(0), in = W.size(1);
  std::vector<double> y(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    double total = b.data()[o];
    for (int64_t i = 0; i < in; ++i) total += W.data()[o * in + i] * x[static_cast<size_t>(i)];
    y[static_cast<size_t>(o)] = total;
  }
  return y;
}

std::vector<double> position(const Tensor& x, int64_t b, int64_t t) {
  const int64_t T = x.size(1), d = x.size(2);
  const real* row = x.data() + (b * T + t) * d;
  return {row, row + d};
}

double phi(double u) { return u > 0 ? u + 1 : std::exp(u); }  // elu(u) + 1

// Linear attention: out_i = W_O concat_h [ Σ_j φ(q_i)·φ(k_j) v_j / (Σ_j φ(q_i)·φ(k_j) + ε) ] + b_O,
// j over the allowed keys. Returns [B, Tq, d_model] as a flat list.
std::vector<double> linear_by_loops(const Attention& a, const Tensor& x, const Tensor& memory,
                                    const AttentionMask& mask) {
  const int64_t B = x.size(0), Tq = x.size(1), Tk = memory.size(1);
  std::vector<double> out;
  for (int64_t b = 0; b < B; ++b) {
    std::vector<std::vector<double>> K, V;
    for (int64_t j = 0; j < Tk; ++j) {
      K.push_back(affine(parameter(a, "k_proj.weight"), parameter(a, "k_proj.bias"), position(memory, b, j)));
      V.push_back(affine(parameter(a, "v_proj.weight"), parameter(a, "v_proj.bias"), position(memory, b, j)));
    }
    for (int64_t i = 0; i < Tq; ++i) {
      std::vector<double> q = affine(parameter(a, "q_proj.weight"), parameter(a, "q_proj.bias"), position(x, b, i));
      std::vector<double> context(d_model, 0.0);
      for (int64_t h = 0; h < heads; ++h) {
        std::vector<double> numerator(d_k, 0.0);
        double denominator = 1e-6;                                       // ε
        for (int64_t j = 0; j < Tk; ++j) {
          if (!mask.key_is_real[static_cast<size_t>(b * Tk + j)] || (mask.causal && j > i)) continue;
          double similarity = 0;                                         // φ(q_i)·φ(k_j) in this head
          for (int64_t c = 0; c < d_k; ++c) similarity += phi(q[h * d_k + c]) * phi(K[j][h * d_k + c]);
          for (int64_t c = 0; c < d_k; ++c) numerator[c] += similarity * V[j][h * d_k + c];
          denominator += similarity;
        }
        for (int64_t c = 0; c < d_k; ++c) context[h * d_k + c] = numerator[c] / denominator;
      }
      for (double v : affine(parameter(a, "out_proj.weight"), parameter(a, "out_proj.bias"), context)) out.push_back(v);
    }
  }
  return out;
}

// External attention as the paper writes it: z = Q M_kᵀ per head; ã = softmax over the (allowed) tokens of each
// slot's column; a = ã / (Σ_s ã + 1e-9) per token; out = W_O concat_h(a M_v) + b_O.
std::vector<double> external_by_loops(const Attention& a, const Tensor& x, const AttentionMask& mask) {
  const int64_t B = x.size(0), T = x.size(1);
  const Tensor M_k = parameter(a, "memory_k.weight"), M_v = parameter(a, "memory_v.weight");   // [S, d_k]
  std::vector<double> out;
  for (int64_t b = 0; b < B; ++b) {
    std::vector<std::vector<double>> Q;
    for (int64_t t = 0; t < T; ++t) {
      Q.push_back(affine(parameter(a, "q_proj.weight"), parameter(a, "q_proj.bias"), position(x, b, t)));
    }
    std::vector<std::vector<double>> context(static_cast<size_t>(T), std::vector<double>(d_model, 0.0));
    for (int64_t h = 0; h < heads; ++h) {
      std::vector<std::vector<double>> z(static_cast<size_t>(T), std::vector<double>(slots, 0.0));  // [T, S]
      for (int64_t t = 0; t < T; ++t)
        for (int64_t s = 0; s < slots; ++s)
          for (int64_t c = 0; c < d_k; ++c) z[t][s] += Q[t][h * d_k + c] * M_k.data()[s * d_k + c];
      for (int64_t i = 0; i < T; ++i) {
        std::vector<double> row(slots, 0.0);                             // ã_i·
        if (mask.key_is_real[static_cast<size_t>(b * T + i)]) {
          for (int64_t s = 0; s < slots; ++s) {
            double total = 0;                                            // Σ_j e^(z_js), j allowed
            for (int64_t j = 0; j < T; ++j) {
              const bool allowed = mask.key_is_real[static_cast<size_t>(b * T + j)] && (!mask.causal || j <= i);
              if (allowed) total += std::exp(z[j][s]);
            }
            row[s] = std::exp(z[i][s]) / total;
          }
        }
        double row_total = 1e-9;
        for (double v : row) row_total += v;
        for (int64_t s = 0; s < slots; ++s)
          for (int64_t c = 0; c < d_k; ++c) context[i][h * d_k + c] += row[s] / row_total * M_v.data()[s * d_k + c];
      }
    }
    for (int64_t t = 0; t < T; ++t) {
      std::vector<double> y = affine(parameter(a, "out_proj.weight"), parameter(a, "out_proj.bias"), context[t]);
      out.insert(out.end(), y.begin(), y.end());
    }
  }
  return out;
}

double max_difference(const std::vector<double>& expected, const Tensor& y) {
  REQUIRE(static_cast<int64_t>(expected.size()) == y.numel());
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i) worst = std::max(worst, std::abs(expected[i] - y.data()[i]));
  return worst;
}

}  // namespace

// ---- prefix_softmax, the op ----

TEST_CASE("prefix_softmax at position i is the softmax of the first i + 1 entries; at the last, the softmax") {
  Generator gen(3);
  Tensor x = Tensor::randn({2, 6}, gen, 3);                                // [2, 6]
  Tensor y = prefix_softmax(x, -1);                                       // [2, 6]
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t i = 0; i < 6; ++i) {
      Tensor prefix = softmax(slice(slice(x, 0, r, r + 1), 1, 0, i + 1));  // [1, i + 1]
      CHECK(std::abs(y.at({r, i}) - prefix.at({0, i})) < 1e-15);
    }
}

TEST_CASE("prefix_softmax: changing later entries leaves earlier outputs unchanged, bit for bit") {
  Generator gen(4);
  Tensor x = Tensor::randn({3, 8}, gen, 3);                                // [3, 8], along axis 0 (columns)
  Tensor y = prefix_softmax(x, 0);
  for (int64_t i = 0; i < 3; ++i) {
    Tensor changed = x.detach();
    for (int64_t r = i + 1; r < 3; ++r)
      for (int64_t c = 0; c < 8; ++c) changed.data()[r * 8 + c] = real(10) * static_cast<real>(gen.normal());
    Tensor y_changed = prefix_softmax(changed, 0);
    for (int64_t r = 0; r <= i; ++r)
      for (int64_t c = 0; c < 8; ++c) CHECK(y_changed.at({r, c}) == y.at({r, c}));
  }
}

TEST_CASE("prefix_softmax: hidden entries get 0, an all-hidden prefix gives 0 and no NaN, forward and backward") {
  Tensor x = Tensor::from_values({5}, {0.3, -1.2, 2.0, 0.7, 1.1}, /*requires_grad=*/true);
  Tensor mask = Tensor::from_values({5}, {hidden, hidden, 0, hidden, 0});
  Tensor y = prefix_softmax(x, 0, mask);                                   // [5]
  CHECK(y.at({0}) == 0);
  CHECK(y.at({1}) == 0);
  CHECK(y.at({2}) == 1);                                                   // the only visible entry so far
  CHECK(y.at({3}) == 0);
  CHECK(std::abs(y.at({4}) - std::exp(1.1) / (std::exp(2.0) + std::exp(1.1))) < 1e-15);
  sum(mul(y, Tensor::from_values({5}, {1, 2, 3, 4, 5}))).backward();
  for (int64_t i = 0; i < 5; ++i) CHECK(std::isfinite(x.grad()[i]));
  CHECK(x.grad()[0] == 0);
  CHECK(x.grad()[1] == 0);
  CHECK(x.grad()[3] == 0);
}

TEST_CASE("prefix_softmax stays finite for scores around 1000") {
  Tensor y = prefix_softmax(Tensor::from_values({4}, {1000, 1001, 999, 1002}), 0);
  CHECK(y.at({0}) == 1);
  CHECK(std::abs(y.at({1}) - 1 / (1 + std::exp(-1.0))) < 1e-15);
  for (real v : y.values()) CHECK(std::isfinite(v));
}

// ---- External attention ----

TEST_CASE("external attention's parameters: q_proj, memory_k.weight [S, d_k], memory_v.weight [S, d_k], out_proj") {
  auto attention = build(AttentionKind::external, AttentionUse::encoder_self);
  std::map<std::string, Shape> shapes;
  for (const NamedParameter& p : attention->named_parameters()) shapes[p.name] = p.tensor.shape();
  CHECK(shapes.size() == 6);
  CHECK(shapes["q_proj.weight"] == Shape{d_model, d_model});
  CHECK(shapes["memory_k.weight"] == Shape{slots, d_k});
  CHECK(shapes["memory_v.weight"] == Shape{slots, d_k});
  CHECK(shapes["out_proj.bias"] == Shape{d_model});
}

TEST_CASE("external attention computes the paper's formula: softmax over the tokens, then L1 over the slots") {
  Generator gen(5);
  for (bool causal : {false, true}) {
    INFO("causal: ", causal);
    auto attention = build(AttentionKind::external, causal ? AttentionUse::decoder_self : AttentionUse::encoder_self);
    Tensor x = Tensor::randn({2, 4, d_model}, gen);                        // [B, T, d_model]
    AttentionMask mask = lengths_mask({4, 3}, 4, 4, causal);
    Tensor y = run(*attention, x, x, mask);                                // [B, T, d_model]
    CHECK(max_difference(external_by_loops(*attention, x, mask), y) < 1e-12);
  }
}

TEST_CASE("external attention's recorded map [B, h, T, S]: each real token's row sums to 1 over the slots") {
  Generator gen(6);
  for (bool causal : {false, true}) {
    INFO("causal: ", causal);
    auto attention = build(AttentionKind::external, causal ? AttentionUse::decoder_self : AttentionUse::encoder_self);
    Tensor x = Tensor::randn({2, 5, d_model}, gen);
    AttentionMask mask = lengths_mask({5, 3}, 5, 5, causal);
    StoringRecorder recorder;
    run(*attention, x, x, mask, &recorder);
    REQUIRE(recorder.calls == 1);
    CHECK(recorder.last_name == "external");
    REQUIRE(recorder.last.shape() == Shape{2, heads, 5, slots});
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < 5; ++i) {
          double total = 0;
          for (int64_t s = 0; s < slots; ++s) total += recorder.last.at({b, h, i, s});
          const bool real_token = mask.key_is_real[static_cast<size_t>(b * 5 + i)];
          CHECK(std::abs(total - (real_token ? 1.0 : 0.0)) < 1e-6);       // a padded token's row is 0
        }
  }
}

// A batch of two sentences (lengths 3 and 5, the first padded with garbage to 5) against each sentence alone.
void check_padding_changes_nothing(AttentionKind kind, AttentionUse use) {
  Generator gen(7);
  auto attention = build(kind, use);
  const bool causal = use == AttentionUse::decoder_self;
  Tensor short_sentence = Tensor::randn({1, 3, d_model}, gen);             // [1, 3, d_model]
  Tensor long_sentence = Tensor::randn({1, 5, d_model}, gen);              // [1, 5, d_model]
  Tensor batch = Tensor::randn({2, 5, d_model}, gen, 5);                   // [2, 5, d_model]; pads: garbage
  put_sentence(batch, 0, short_sentence);
  put_sentence(batch, 1, long_sentence);
  Tensor batched = run(*attention, batch, batch, lengths_mask({3, 5}, 5, 5, causal));
  Tensor alone_short = run(*attention, short_sentence, short_sentence, lengths_mask({3}, 3, 3, causal));
  Tensor alone_long = run(*attention, long_sentence, long_sentence, lengths_mask({5}, 5, 5, causal));
  std::vector<real> got_short = first_positions(batched, 0, 3), want_short = first_positions(alone_short, 0, 3);
  std::vector<real> got_long = first_positions(batched, 1, 5), want_long = first_positions(alone_long, 0, 5);
  for (size_t i = 0; i < want_short.size(); ++i) CHECK(std::abs(got_short[i] - want_short[i]) < 1e-12);
  for (size_t i = 0; i < want_long.size(); ++i) CHECK(std::abs(got_long[i] - want_long[i]) < 1e-12);
}

TEST_CASE("external attention: padded tokens do not change the real tokens' outputs (encoder and decoder)") {
  check_padding_changes_nothing(AttentionKind::external, AttentionUse::encoder_self);
  check_padding_changes_nothing(AttentionKind::external, AttentionUse::decoder_self);
}

// Changing every token after position i (in both sentences of a padded batch) leaves positions ≤ i unchanged.
void check_future_is_invisible(AttentionKind kind) {
  Generator gen(8);
  auto attention = build(kind, AttentionUse::decoder_self);
  const int64_t T = 6;
  Tensor x = Tensor::randn({2, T, d_model}, gen);                         // [B, T, d_model]
  AttentionMask mask = lengths_mask({6, 4}, T, T, /*causal=*/true);
  Tensor y = run(*attention, x, x, mask);                                 // [B, T, d_model]
  for (int64_t i = 0; i < T; ++i) {
    Tensor changed = x.detach();
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t t = i + 1; t < T; ++t)
        for (int64_t c = 0; c < d_model; ++c) changed.data()[(b * T + t) * d_model + c] = real(3) * real(gen.normal());
    Tensor y_changed = run(*attention, changed, changed, mask);
    INFO("changed the tokens after position ", i);
    for (int64_t b = 0; b < 2; ++b) CHECK(first_positions(y_changed, b, i + 1) == first_positions(y, b, i + 1));
    if (i + 1 < T) CHECK(first_positions(y_changed, 0, T) != first_positions(y, 0, T));  // the change did reach y
  }
}

TEST_CASE("causal external attention: changing tokens after i leaves outputs at ≤ i unchanged, bit for bit") {
  check_future_is_invisible(AttentionKind::external);
}

TEST_CASE("external attention at the last position: the causal prefix result equals the non-causal one") {
  Generator gen(9);
  auto attention = build(AttentionKind::external, AttentionUse::encoder_self);
  Tensor x = Tensor::randn({2, 5, d_model}, gen);
  Tensor causal = run(*attention, x, x, lengths_mask({5, 5}, 5, 5, true));
  Tensor full = run(*attention, x, x, lengths_mask({5, 5}, 5, 5, false));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t c = 0; c < d_model; ++c) CHECK(std::abs(causal.at({b, 4, c}) - full.at({b, 4, c})) < 1e-12);
}

// ---- Linear attention ----

TEST_CASE("linear attention's output equals the explicit formula computed with loops (self, causal, cross)") {
  Generator gen(10);
  {
    auto attention = build(AttentionKind::linear, AttentionUse::encoder_self);
    Tensor x = Tensor::randn({2, 3, d_model}, gen);
    AttentionMask mask = lengths_mask({3, 2}, 3, 3, false);
    CHECK(max_difference(linear_by_loops(*attention, x, x, mask), run(*attention, x, x, mask)) < 1e-12);
  }
  {
    auto attention = build(AttentionKind::linear, AttentionUse::decoder_self);
    Tensor x = Tensor::randn({2, 3, d_model}, gen);
    AttentionMask mask = lengths_mask({3, 2}, 3, 3, true);
    CHECK(max_difference(linear_by_loops(*attention, x, x, mask), run(*attention, x, x, mask)) < 1e-12);
  }
  {
    auto attention = build(AttentionKind::linear, AttentionUse::cross);
    Tensor x = Tensor::randn({2, 2, d_model}, gen);                        // queries [B, Tq = 2, d_model]
    Tensor memory = Tensor::randn({2, 3, d_model}, gen);                   // keys    [B, Tk = 3, d_model]
    AttentionMask mask = lengths_mask({3, 1}, 2, 3, false);
    CHECK(max_difference(linear_by_loops(*attention, x, memory, mask), run(*attention, x, memory, mask)) < 1e-12);
  }
}

TEST_CASE("linear attention's implied map: rows sum to 1, and are 0 on padded and future keys") {
  Generator gen(11);
  struct Setup {
    AttentionUse use;
    int64_t Tq, Tk;
  };
  for (Setup setup : {Setup{AttentionUse::encoder_self, 4, 4}, Setup{AttentionUse::decoder_self, 4, 4},
                      Setup{AttentionUse::cross, 3, 5}}) {
    INFO("use: ", use_name(setup.use));
    auto attention = build(AttentionKind::linear, setup.use);
    const bool self = setup.use != AttentionUse::cross;
    const bool causal = setup.use == AttentionUse::decoder_self;
    AttentionMask mask = lengths_mask({setup.Tk, setup.Tk - 2}, setup.Tq, setup.Tk, causal);
    Tensor x = Tensor::randn({2, setup.Tq, d_model}, gen);
    Tensor memory = self ? x : Tensor::randn({2, setup.Tk, d_model}, gen);
    StoringRecorder recorder;
    run(*attention, x, memory, mask, &recorder);
    REQUIRE(recorder.calls == 1);
    REQUIRE(recorder.last.shape() == Shape{2, heads, setup.Tq, setup.Tk});
    AttentionConfig no_window;
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < setup.Tq; ++i) {
          double total = 0;
          for (int64_t j = 0; j < setup.Tk; ++j) {
            const real a = recorder.last.at({b, h, i, j});
            if (mask.allowed(b, i, j, no_window)) {
              CHECK(a > 0);
            } else {
              CHECK(a == 0);
            }
            total += a;
          }
          CHECK(std::abs(total - 1) < 1e-12);
        }
  }
}

TEST_CASE("linear attention: padded tokens do not change the real tokens' outputs (encoder, decoder, cross)") {
  check_padding_changes_nothing(AttentionKind::linear, AttentionUse::encoder_self);
  check_padding_changes_nothing(AttentionKind::linear, AttentionUse::decoder_self);

  // Cross: the encoder's output (keys) padded with garbage from 3 to 5 positions.
  Generator gen(12);
  auto attention = build(AttentionKind::linear, AttentionUse::cross);
  Tensor queries = Tensor::randn({1, 4, d_model}, gen);                    // [1, Tq, d_model]
  Tensor keys = Tensor::randn({1, 3, d_model}, gen);                       // [1, 3, d_model]
  Tensor padded_keys = Tensor::randn({1, 5, d_model}, gen, 5);             // [1, 5, d_model]
  put_sentence(padded_keys, 0, keys);
  Tensor alone = run(*attention, queries, keys, lengths_mask({3}, 4, 3, false));
  Tensor padded = run(*attention, queries, padded_keys, lengths_mask({3}, 4, 5, false));
  for (int64_t i = 0; i < alone.numel(); ++i) CHECK(std::abs(alone.data()[i] - padded.data()[i]) < 1e-12);
}

TEST_CASE("causal linear attention: changing tokens after i leaves outputs at ≤ i unchanged, bit for bit") {
  check_future_is_invisible(AttentionKind::linear);
}

TEST_CASE("linear attention at the last position: the causal prefix result equals the non-causal one") {
  Generator gen(13);
  auto attention = build(AttentionKind::linear, AttentionUse::encoder_self);
  Tensor x = Tensor::randn({2, 5, d_model}, gen);
  Tensor causal = run(*attention, x, x, lengths_mask({5, 5}, 5, 5, true));
  Tensor full = run(*attention, x, x, lengths_mask({5, 5}, 5, 5, false));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t c = 0; c < d_model; ++c) CHECK(std::abs(causal.at({b, 4, c}) - full.at({b, 4, c})) < 1e-12);
}

// ---- Both ----

TEST_CASE("the recorder is called once per forward when set; with no recorder nothing is recorded or changed") {
  Generator gen(14);
  for (AttentionKind kind : {AttentionKind::external, AttentionKind::linear}) {
    INFO("kind: ", name_of(kind));
    auto attention = build(kind, AttentionUse::decoder_self);
    Tensor x = Tensor::randn({2, 4, d_model}, gen);
    AttentionMask mask = lengths_mask({4, 2}, 4, 4, true);
    StoringRecorder counting;
    Tensor recorded = run(*attention, x, x, mask, &counting);
    CHECK(counting.calls == 1);
    Tensor unrecorded = run(*attention, x, x, mask, nullptr);
    CHECK(counting.calls == 1);                                            // the null recorder: no call anywhere
    CHECK(recorded.values() == unrecorded.values());                       // recording changes nothing
  }
}

TEST_CASE("a mask that does not fit the inputs is an error naming the module") {
  Generator gen(15);
  auto external = build(AttentionKind::external, AttentionUse::encoder_self);
  auto linear = build(AttentionKind::linear, AttentionUse::decoder_self);
  Tensor x = Tensor::randn({2, 4, d_model}, gen);
  CHECK_THROWS_WITH(run(*external, x, x, lengths_mask({4, 4}, 3, 3, false)), doctest::Contains("external"));
  Tensor memory = Tensor::randn({2, 5, d_model}, gen);
  CHECK_THROWS_WITH(run(*linear, x, memory, lengths_mask({5, 5}, 4, 5, true)), doctest::Contains("causal"));
}
