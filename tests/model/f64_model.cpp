// f64_model.cpp — facts about the Transformer as a whole (float64), each for every attention kind:
//
//   * its parameters carry PyTorch/fairseq names, and shared or tied tables are one parameter;
//   * decoder self-attention cannot see later positions (the logits before a change stay the same);
//   * padding changes nothing: appended pad tokens and batching with longer sentences leave the real
//     positions' logits unchanged;
//   * the attention maps handed to a recorder are probability distributions over exactly the allowed keys;
//   * without positional encodings the encoder is a bag of words; sinusoidal positions are the paper's formula
//     and exist for any length;
//   * a config that cannot build a model is refused with an attnlab::Error naming its key;
//   * every layer type and the model have a gradient check (the checks themselves run in f64_gradcheck.cpp).
//
// "For every attention kind": each fact is a helper taking the attention kind, and a TEST_CASE runs it in one
// doctest SUBCASE per kind of attention_kinds(). The kind is used for encoder self-, decoder self- and
// cross-attention — except external attention, which is self-attention only (its keys are learned memories):
// there cross-attention stays scaled_dot.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "gpt/checks.h"
#include "model/transformer.h"
#include "nn/embedding.h"
#include "util/error.h"

using namespace attnlab;

namespace {

// A small model with the given attention kind: vocabularies 11 (source) and 13 (target), d_model 8, 2 heads,
// d_ff 16, two encoder and two decoder layers, no dropout.
ModelConfig model_config(AttentionKind kind, NormPlacement norm = NormPlacement::post,
                         PositionalKind positional = PositionalKind::sinusoidal) {
  ModelConfig c;
  c.src_vocab = 11;
  c.tgt_vocab = 13;
  c.d_model = 8;
  c.heads = 2;
  c.d_ff = 16;
  c.encoder_layers = 2;
  c.decoder_layers = 2;
  c.dropout = 0;
  c.norm = norm;
  c.positional = positional;
  AttentionConfig attention;
  attention.kind = kind;
  attention.memory_slots = 5;
  c.encoder_attention = attention;
  c.decoder_attention = attention;
  c.cross_attention = kind == AttentionKind::external ? AttentionConfig{} : attention;  // external: self-attention only
  return c;
}

// Moves every parameter away from its initial value, by N(0, 0.1²) noise. Some initial values would hide a
// layer: SAGAN's output scale γ starts at 0, which would make its attention output nothing at all, and
// LayerNorm starts as γ = 1, β = 0.
void move_off_init(const Module& model, Generator& gen) {
  for (NamedParameter p : model.named_parameters()) {                    // p.tensor: a handle to the parameter
    for (real& v : p.tensor.values()) v += static_cast<real>(0.1 * gen.normal());
  }
}

// A built model, moved off its initial values, seeded so that every test sees the same numbers.
struct TestModel {
  explicit TestModel(const ModelConfig& c) : init(12345), model(c, init) { move_off_init(model, init); }
  Generator init;
  Seq2Seq model;
};

// Sentences of different lengths as one [B, T] batch, padded at the end with pad_id up to `length` (or the
// longest sentence).
TokenIds batch(const std::vector<std::vector<int32_t>>& sentences, int64_t length = 0) {
  for (const auto& s : sentences) length = std::max<int64_t>(length, static_cast<int64_t>(s.size()));
  TokenIds ids{{static_cast<int64_t>(sentences.size()), length}, {}};
  for (const auto& s : sentences) {
    ids.values.insert(ids.values.end(), s.begin(), s.end());
    ids.values.insert(ids.values.end(), static_cast<size_t>(length) - s.size(), pad_id);
  }
  return ids;
}

// Logits [B, T, V] at inference: no dropout, no graph.
Tensor logits_of(Seq2Seq& model, const TokenIds& src, const TokenIds& tgt_in) {
  NoGradGuard no_grad;
  ForwardContext eval;
  return model.forward(src, tgt_in, eval);
}

// The largest |a − b| between logits[b_a, t, :] of `a` and logits[b_b, t, :] of `b`, over t < positions.
double max_difference(const Tensor& a, int64_t row_a, const Tensor& b, int64_t row_b, int64_t positions) {
  double worst = 0;
  for (int64_t t = 0; t < positions; ++t) {
    for (int64_t v = 0; v < a.size(2); ++v) {
      worst = std::max(worst, std::abs(static_cast<double>(a.at({row_a, t, v}) - b.at({row_b, t, v}))));
    }
  }
  return worst;
}

std::set<std::string> parameter_names(const Module& model) {
  std::set<std::string> names;
  for (const NamedParameter& p : model.named_parameters()) names.insert(p.name);
  return names;
}

Shape parameter_shape(const Module& model, const std::string& name) {
  for (const NamedParameter& p : model.named_parameters()) {
    if (p.name == name) return p.tensor.shape();
  }
  FAIL("no parameter called ", name);
  return {};
}

Tensor parameter(const Module& model, const std::string& name) {
  for (const NamedParameter& p : model.named_parameters()) {
    if (p.name == name) return p.tensor;
  }
  FAIL("no parameter called ", name);
  return {};
}

// Runs `fact(kind)` once per attention kind, each in its own SUBCASE. A kind that throws (one not written yet,
// say) fails its own subcase with the exception's message, and the other kinds still run.
template <typename Fact>
void for_every_kind(Fact fact) {
  for (AttentionKind kind : attention_kinds()) {
    SUBCASE(name_of(kind).c_str()) { CHECK_NOTHROW(fact(kind)); }
  }
}

}  // namespace

// ------------------------------------------------------------------ parameter names

TEST_CASE("parameters are named as in fairseq's Transformer, with PyTorch's shapes") {
  ModelConfig c = model_config(AttentionKind::scaled_dot);
  c.encoder_layers = 1;
  c.decoder_layers = 1;
  Generator init(1);
  Seq2Seq model(c, init);

  std::set<std::string> expected{"encoder.embed_tokens.weight", "decoder.embed_tokens.weight",
                                 "output_projection.weight"};
  auto attention = [&](const std::string& prefix) {
    for (const char* projection : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
      for (const char* part : {"weight", "bias"}) expected.insert(prefix + "." + projection + "." + part);
    }
  };
  auto sublayers = [&](const std::string& layer, const std::vector<std::string>& names) {
    for (const std::string& name : names) {
      for (const char* part : {"weight", "bias"}) expected.insert(layer + "." + name + "." + part);
    }
  };
  attention("encoder.layers.0.self_attn");
  sublayers("encoder.layers.0", {"self_attn_layer_norm", "ffn.linear1", "ffn.linear2", "final_layer_norm"});
  attention("decoder.layers.0.self_attn");
  attention("decoder.layers.0.encoder_attn");
  sublayers("decoder.layers.0", {"self_attn_layer_norm", "encoder_attn_layer_norm", "ffn.linear1", "ffn.linear2",
                                 "final_layer_norm"});
  CHECK(parameter_names(model) == expected);
  CHECK(model.named_parameters().size() == 45);

  const int64_t d = 8, d_ff = 16;
  CHECK(parameter_shape(model, "encoder.embed_tokens.weight") == Shape{11, d});
  CHECK(parameter_shape(model, "decoder.embed_tokens.weight") == Shape{13, d});
  CHECK(parameter_shape(model, "encoder.layers.0.self_attn.q_proj.weight") == Shape{d, d});
  CHECK(parameter_shape(model, "encoder.layers.0.self_attn_layer_norm.weight") == Shape{d});
  CHECK(parameter_shape(model, "encoder.layers.0.ffn.linear1.weight") == Shape{d_ff, d});
  CHECK(parameter_shape(model, "encoder.layers.0.ffn.linear2.weight") == Shape{d, d_ff});
  CHECK(parameter_shape(model, "encoder.layers.0.final_layer_norm.bias") == Shape{d});
  CHECK(parameter_shape(model, "decoder.layers.0.encoder_attn.k_proj.bias") == Shape{d});
  CHECK(parameter_shape(model, "output_projection.weight") == Shape{13, d});
}

TEST_CASE("pre-LN adds one final LayerNorm to each stack: encoder.layer_norm and decoder.layer_norm") {
  Generator init_post(1), init_pre(1);
  Seq2Seq post(model_config(AttentionKind::scaled_dot, NormPlacement::post), init_post);
  Seq2Seq pre(model_config(AttentionKind::scaled_dot, NormPlacement::pre), init_pre);
  std::set<std::string> expected = parameter_names(post);
  for (const char* name : {"encoder.layer_norm.weight", "encoder.layer_norm.bias", "decoder.layer_norm.weight",
                           "decoder.layer_norm.bias"}) {
    CHECK(expected.count(name) == 0);
    expected.insert(name);
  }
  CHECK(parameter_names(pre) == expected);
  CHECK(parameter_shape(pre, "decoder.layer_norm.weight") == Shape{8});
}

TEST_CASE("learned positions are the parameters encoder.embed_positions.weight and decoder.embed_positions.weight") {
  ModelConfig c = model_config(AttentionKind::scaled_dot, NormPlacement::post, PositionalKind::learned);
  c.max_len = 20;
  Generator init(1);
  Seq2Seq model(c, init);
  CHECK(parameter_shape(model, "encoder.embed_positions.weight") == Shape{20, 8});
  CHECK(parameter_shape(model, "decoder.embed_positions.weight") == Shape{20, 8});
}

TEST_CASE("parameter names are unique, for every attention kind and both norm placements") {
  for_every_kind([](AttentionKind kind) {
    for (NormPlacement norm : {NormPlacement::post, NormPlacement::pre}) {
      Generator init(1);
      Seq2Seq model(model_config(kind, norm), init);
      std::vector<NamedParameter> parameters = model.named_parameters();
      INFO(name_of(kind), " ", name_of(norm));
      CHECK(parameter_names(model).size() == parameters.size());
      int64_t count = 0;
      for (const NamedParameter& p : parameters) count += p.tensor.numel();
      CHECK(model.parameter_count() == count);
    }
  });
}

TEST_CASE("share_embeddings makes one table, shared.weight, for source and target") {
  ModelConfig c = model_config(AttentionKind::scaled_dot);
  c.tgt_vocab = c.src_vocab;
  c.share_embeddings = true;
  Generator init(1);
  Seq2Seq model(c, init);
  std::set<std::string> names = parameter_names(model);
  CHECK(names.count("shared.weight") == 1);
  CHECK(names.count("encoder.embed_tokens.weight") == 0);
  CHECK(names.count("decoder.embed_tokens.weight") == 0);
  CHECK(parameter_shape(model, "shared.weight") == Shape{11, 8});

  // Both sides read the one table: a source and a target token both send gradient into it.
  TokenIds src = batch({{4, 5}}), tgt_in = batch({{1, 6}}), tgt_out = batch({{6, eos_id}});
  ForwardContext eval;
  cross_entropy(model.forward(src, tgt_in, eval), tgt_out).backward();
  Tensor table = parameter(model, "shared.weight");
  auto row_touched = [&](int64_t row) {
    bool any = false;
    for (int64_t k = 0; k < 8; ++k) any |= table.grad_values()[static_cast<size_t>(row * 8 + k)] != 0;
    return any;
  };
  CHECK(row_touched(4));   // source only
  CHECK(row_touched(1));   // target only (bos)
  CHECK_FALSE(row_touched(9));  // neither
}

TEST_CASE("tie_output removes output_projection.weight; the target table's gradient sums both of its uses") {
  ModelConfig tied_config = model_config(AttentionKind::scaled_dot);
  tied_config.tie_output = true;
  ModelConfig untied_config = model_config(AttentionKind::scaled_dot);
  Generator init_tied(3), init_untied(3);
  Seq2Seq tied(tied_config, init_tied);
  Seq2Seq untied(untied_config, init_untied);
  CHECK(parameter_names(tied).count("output_projection.weight") == 0);
  CHECK(parameter_names(untied).size() == parameter_names(tied).size() + 1);

  // Give the untied model the tied one's numbers, with the table copied into its output projection: the two
  // models then compute the same function, and the tied table's gradient must be the sum of the untied
  // model's embedding gradient and output-projection gradient.
  for (const NamedParameter& p : tied.named_parameters()) parameter(untied, p.name).values() = p.tensor.values();
  Tensor table = parameter(tied, "decoder.embed_tokens.weight");
  parameter(untied, "output_projection.weight").values() = table.values();

  TokenIds src = batch({{4, 5, 6}, {7, 8}}), tgt_in = batch({{1, 4, 9}, {1, 5}}),
           tgt_out = batch({{4, 9, eos_id}, {5, eos_id}});
  ForwardContext eval;
  Tensor tied_loss = cross_entropy(tied.forward(src, tgt_in, eval), tgt_out, real(0.1), pad_id);
  Tensor untied_loss = cross_entropy(untied.forward(src, tgt_in, eval), tgt_out, real(0.1), pad_id);
  CHECK(tied_loss.item() == doctest::Approx(untied_loss.item()).epsilon(1e-12));
  tied_loss.backward();
  untied_loss.backward();

  const std::vector<real>& as_embedding = parameter(untied, "decoder.embed_tokens.weight").grad_values();
  const std::vector<real>& as_output = parameter(untied, "output_projection.weight").grad_values();
  REQUIRE(table.grad_values().size() == as_embedding.size());
  double worst = 0, embedding_size = 0, output_size = 0;
  for (size_t i = 0; i < as_embedding.size(); ++i) {
    worst = std::max(worst, std::abs(double(table.grad_values()[i] - (as_embedding[i] + as_output[i]))));
    embedding_size = std::max(embedding_size, std::abs(double(as_embedding[i])));
    output_size = std::max(output_size, std::abs(double(as_output[i])));
  }
  CHECK(embedding_size > 1e-3);   // both uses contribute something…
  CHECK(output_size > 1e-3);
  CHECK(worst < 1e-12);           // …and the tied gradient is exactly their sum
}

// ------------------------------------------------------------------ causality

// For every position i: changing the target tokens after i leaves the logits at positions ≤ i unchanged, while
// the logits at i + 1 (whose input token changed) do change.
//
// "Unchanged" means bit for bit: a hidden key gets weight exactly 0 (e^−∞), and 0 · v adds nothing, so the
// numbers at positions ≤ i are computed by exactly the same operations either way. (This relies on matmul being
// bit-reproducible wherever its operands sit in memory: see tensor/product/product.cpp.) A leak from the future would show as
// a difference of order 1e-2.

void check_causality(AttentionKind kind, NormPlacement norm) {
  INFO(name_of(kind), ", ", name_of(norm), "-LN");
  TestModel m(model_config(kind, norm));
  const TokenIds src = batch({{4, 5, 6, 7, 8}, {9, 10, 4}});
  const TokenIds tgt_in = batch({{bos_id, 4, 5, 6, 7, 8}, {bos_id, 9, 10, 11, 12, 4}});
  const int64_t T = tgt_in.shape[1];
  const Tensor logits = logits_of(m.model, src, tgt_in);                 // [B, T, V]

  for (int64_t i = 0; i + 1 < T; ++i) {
    TokenIds changed = tgt_in;
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t t = i + 1; t < T; ++t) {
        int32_t& token = changed.values[static_cast<size_t>(b * T + t)];
        token = 4 + (token - 4 + 3) % 9;                                  // another real token of the 13
      }
    }
    const Tensor after = logits_of(m.model, src, changed);
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t t = 0; t <= i; ++t) {
        for (int64_t v = 0; v < logits.size(2); ++v) {
          INFO("sentence ", b, ", changed after position ", i, ", logit at position ", t, ", class ", v);
          CHECK(after.at({b, t, v}) == logits.at({b, t, v}));
        }
      }
      INFO("sentence ", b, ": changing the token at position ", i + 1, " changes its logits");
      CHECK(max_difference(after, b, logits, b, i + 2) > 1e-6);
    }
  }
}

TEST_CASE("decoder self-attention cannot see later positions") {
  for_every_kind([](AttentionKind kind) {
    check_causality(kind, NormPlacement::post);
    check_causality(kind, NormPlacement::pre);
  });
}

// ------------------------------------------------------------------ padding

void check_source_padding(AttentionKind kind) {
  INFO(name_of(kind));
  TestModel m(model_config(kind));
  const TokenIds tgt_in = batch({{bos_id, 4, 5}, {bos_id, 6, 7}});
  const Tensor plain = logits_of(m.model, batch({{4, 5, 6}, {7, 8}}), tgt_in);
  const Tensor padded = logits_of(m.model, batch({{4, 5, 6}, {7, 8}}, /*length=*/6), tgt_in);
  for (int64_t b = 0; b < 2; ++b) CHECK(max_difference(plain, b, padded, b, 3) < 1e-10);
}

void check_target_padding(AttentionKind kind) {
  INFO(name_of(kind));
  TestModel m(model_config(kind));
  const TokenIds src = batch({{4, 5, 6}, {7, 8}});
  const Tensor plain = logits_of(m.model, src, batch({{bos_id, 4, 5}, {bos_id, 6}}));
  const Tensor padded = logits_of(m.model, src, batch({{bos_id, 4, 5}, {bos_id, 6}}, /*length=*/6));
  CHECK(max_difference(plain, 0, padded, 0, 3) < 1e-10);
  CHECK(max_difference(plain, 1, padded, 1, 2) < 1e-10);                 // sentence 1 has 2 real positions
}

void check_batching(AttentionKind kind) {
  INFO(name_of(kind));
  TestModel m(model_config(kind));
  const std::vector<int32_t> src_a{4, 5, 6, 7, 8}, src_b{9, 10};
  const std::vector<int32_t> tgt_a{bos_id, 4, 5}, tgt_b{bos_id, 6, 7, 8, 9, 10};
  const Tensor alone_a = logits_of(m.model, batch({src_a}), batch({tgt_a}));
  const Tensor alone_b = logits_of(m.model, batch({src_b}), batch({tgt_b}));
  const Tensor together = logits_of(m.model, batch({src_a, src_b}), batch({tgt_a, tgt_b}));
  CHECK(max_difference(together, 0, alone_a, 0, 3) < 1e-10);
  CHECK(max_difference(together, 1, alone_b, 0, 6) < 1e-10);
}

TEST_CASE("pad tokens appended to the source leave the real positions' logits unchanged") {
  for_every_kind(check_source_padding);
}

TEST_CASE("pad tokens appended to the target leave the real positions' logits unchanged") {
  for_every_kind(check_target_padding);
}

TEST_CASE("a sentence gets the same logits in a batch with a longer or shorter sentence as alone") {
  for_every_kind(check_batching);
}

// ------------------------------------------------------------------ recorded attention maps

namespace {

class MapRecorder : public AttentionRecorder {
 public:
  void record(const std::string& name, const Tensor& weights) override {
    CHECK_MESSAGE(maps.count(name) == 0, "recorded twice: ", name);
    maps[name] = weights.detach();
  }
  std::map<std::string, Tensor> maps;
};

// Every real query's row of `map` [B, h, Tq, Tk] sums to 1 over the keys it may see, and gives the others
// weight exactly 0. `queries` and `keys` are the token ids on either side; `causal` hides keys j > i.
// For external attention the last axis is the memory slots, and the rows sum to 1 over all of them; local_p's
// rows sum to between e^(−2) and 1 (its Gaussian is not renormalised).
void check_map(const std::string& name, const Tensor& map, const TokenIds& queries, const TokenIds& keys,
               bool causal, bool over_slots, int64_t slots, int64_t heads, bool name_is_local_p) {
  INFO(name);
  const int64_t B = queries.shape[0], Tq = queries.shape[1], Tk = over_slots ? slots : keys.shape[1];
  REQUIRE(map.shape() == Shape{B, heads, Tq, Tk});
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t head = 0; head < heads; ++head) {
      for (int64_t i = 0; i < Tq; ++i) {
        if (queries.values[static_cast<size_t>(b * Tq + i)] == pad_id) continue;  // a row nothing reads
        double total = 0;
        for (int64_t j = 0; j < Tk; ++j) {
          const double w = map.at({b, head, i, j});
          const bool allowed = over_slots || (keys.values[static_cast<size_t>(b * Tk + j)] != pad_id &&
                                              (!causal || j <= i));
          INFO("sentence ", b, ", head ", head, ", query ", i, ", key ", j);
          if (allowed) {
            CHECK(w >= 0);
            total += w;
          } else {
            CHECK(w == 0);
          }
        }
        INFO("sentence ", b, ", head ", head, ", query ", i);
        if (name_is_local_p) {                             // softmax × Gaussian, not renormalised (local.cpp)
          CHECK(total <= 1 + 1e-12);
          CHECK(total >= std::exp(-2.0) - 1e-12);
        } else {
          CHECK(total == doctest::Approx(1).epsilon(1e-6));  // external and linear may divide by a sum + small ε
        }
      }
    }
  }
}

void check_recorded_maps(AttentionKind kind) {
  INFO(name_of(kind));
  const ModelConfig c = model_config(kind);
  TestModel m(c);
  const TokenIds src = batch({{4, 5, 6, 7}, {8, 9}});
  const TokenIds tgt_in = batch({{bos_id, 4, 5}, {bos_id, 6, 7, 8, 9}});
  MapRecorder recorder;
  ForwardContext ctx;
  ctx.recorder = &recorder;
  m.model.forward(src, tgt_in, ctx);

  std::set<std::string> expected;
  for (const char* layer : {"0", "1"}) {
    expected.insert(std::string("encoder.layers.") + layer + ".self_attn");
    expected.insert(std::string("decoder.layers.") + layer + ".self_attn");
    expected.insert(std::string("decoder.layers.") + layer + ".encoder_attn");
  }
  std::set<std::string> recorded;
  for (const auto& [name, map] : recorder.maps) recorded.insert(name);
  REQUIRE(recorded == expected);

  const bool external = kind == AttentionKind::external;  // encoder and decoder self-attention; cross stays scaled_dot
  const int64_t slots = c.encoder_attention.memory_slots;
  // One map per head (2 here), except SAGAN, which is single-headed by design.
  const int64_t heads = kind == AttentionKind::sagan ? 1 : 2;
  for (const char* layer : {"encoder.layers.0", "encoder.layers.1"}) {
    check_map(std::string(layer) + ".self_attn", recorder.maps[std::string(layer) + ".self_attn"], src, src, false,
              external, slots, heads, kind == AttentionKind::local_p);
  }
  for (const char* layer : {"decoder.layers.0", "decoder.layers.1"}) {
    check_map(std::string(layer) + ".self_attn", recorder.maps[std::string(layer) + ".self_attn"], tgt_in, tgt_in,
              true, external, slots, heads, kind == AttentionKind::local_p);
    check_map(std::string(layer) + ".encoder_attn", recorder.maps[std::string(layer) + ".encoder_attn"], tgt_in,
              src, false, false, slots, heads, kind == AttentionKind::local_p);
  }
}

}  // namespace

TEST_CASE("every layer's attention map is recorded under its name, and weighs only the keys it may see") {
  for_every_kind(check_recorded_maps);
}

TEST_CASE("recording the attention maps does not change the logits") {
  TestModel m(model_config(AttentionKind::scaled_dot));
  const TokenIds src = batch({{4, 5, 6}}), tgt_in = batch({{bos_id, 4}});
  MapRecorder recorder;
  ForwardContext ctx;
  ctx.recorder = &recorder;
  NoGradGuard no_grad;
  const Tensor recorded = m.model.forward(src, tgt_in, ctx);
  CHECK(recorder.maps.size() == 6);
  CHECK(max_difference(logits_of(m.model, src, tgt_in), 0, recorded, 0, 2) == 0);
}

// ------------------------------------------------------------------ positions

namespace {

// The encoder's output [1, S, d] for one sentence.
Tensor encode_one(Seq2Seq& model, const std::vector<int32_t>& sentence) {
  NoGradGuard no_grad;
  ForwardContext eval;
  return model.encode(batch({sentence}), eval);
}

// The largest |a[0, perm[t], k] − b[0, t, k]|: zero when b is a with its positions permuted by perm.
double permutation_mismatch(const Tensor& a, const Tensor& b, const std::vector<int64_t>& perm) {
  double worst = 0;
  for (int64_t t = 0; t < b.size(1); ++t) {
    for (int64_t k = 0; k < b.size(2); ++k) {
      worst = std::max(worst, std::abs(double(a.at({0, perm[static_cast<size_t>(t)], k}) - b.at({0, t, k}))));
    }
  }
  return worst;
}

void check_bag_of_words(AttentionKind kind) {
  INFO(name_of(kind));
  const std::vector<int32_t> sentence{4, 5, 6, 7, 8};
  const std::vector<int64_t> perm{3, 0, 4, 1, 2};                         // permuted[t] = sentence[perm[t]]
  std::vector<int32_t> permuted;
  for (int64_t p : perm) permuted.push_back(sentence[static_cast<size_t>(p)]);

  // Local attention places its window by position (p_i = i, or S · σ(…) with a Gaussian over j − p_i): it knows
  // word order even without positional encodings, so it is no bag of words.
  const bool local = kind == AttentionKind::local_m || kind == AttentionKind::local_p;
  TestModel no_positions(model_config(kind, NormPlacement::post, PositionalKind::none));
  const double unordered = permutation_mismatch(encode_one(no_positions.model, sentence),
                                                encode_one(no_positions.model, permuted), perm);
  if (local) CHECK(unordered > 1e-3);
  else CHECK(unordered < 1e-10);

  TestModel sinusoidal(model_config(kind, NormPlacement::post, PositionalKind::sinusoidal));
  CHECK(permutation_mismatch(encode_one(sinusoidal.model, sentence), encode_one(sinusoidal.model, permuted),
                             perm) > 1e-3);
}

}  // namespace

TEST_CASE("without positional encodings, permuting the source permutes the encoder's outputs; with them it does not") {
  for_every_kind(check_bag_of_words);
}

TEST_CASE("the sinusoidal table is P[t, 2i] = sin(t / 10000^(2i/d)), P[t, 2i+1] = cos(t / 10000^(2i/d))") {
  // d = 8: the wavelengths' divisors 10000^(2i/8) are 1, 10, 100 and 1000.
  const Tensor P = PositionalEncoding::sinusoidal_table(50, 8);          // [50, 8]
  REQUIRE(P.shape() == Shape{50, 8});
  CHECK(P.at({0, 0}) == 0);
  CHECK(P.at({0, 1}) == 1);
  CHECK(P.at({1, 0}) == doctest::Approx(std::sin(1.0)).epsilon(1e-12));
  CHECK(P.at({1, 1}) == doctest::Approx(std::cos(1.0)).epsilon(1e-12));
  CHECK(P.at({7, 2}) == doctest::Approx(std::sin(0.7)).epsilon(1e-12));
  CHECK(P.at({7, 3}) == doctest::Approx(std::cos(0.7)).epsilon(1e-12));
  CHECK(P.at({49, 4}) == doctest::Approx(std::sin(0.49)).epsilon(1e-12));
  CHECK(P.at({40, 6}) == doctest::Approx(std::sin(0.04)).epsilon(1e-12));
  CHECK(P.at({40, 7}) == doctest::Approx(std::cos(0.04)).epsilon(1e-12));
}

TEST_CASE("sinusoidal positions exist past max_len; a learned table refuses a longer input, naming model.max_len") {
  const Tensor P = PositionalEncoding::sinusoidal_table(1000, 8);
  CHECK(P.at({999, 2}) == doctest::Approx(std::sin(99.9)).epsilon(1e-12));
  CHECK(P.at({999, 5}) == doctest::Approx(std::cos(9.99)).epsilon(1e-12));

  const std::vector<int32_t> long_sentence{4, 5, 6, 7, 8, 9, 10, 4, 5, 6};  // 10 tokens
  ModelConfig c = model_config(AttentionKind::scaled_dot, NormPlacement::post, PositionalKind::sinusoidal);
  c.max_len = 4;
  TestModel sinusoidal(c);
  CHECK(encode_one(sinusoidal.model, long_sentence).shape() == Shape{1, 10, 8});

  c.positional = PositionalKind::learned;
  TestModel learned(c);
  CHECK(encode_one(learned.model, {4, 5, 6, 7}).shape() == Shape{1, 4, 8});
  CHECK_THROWS_WITH_AS(encode_one(learned.model, long_sentence), doctest::Contains("model.max_len"), Error);
}

// ------------------------------------------------------------------ config validation

namespace {

// The message of the attnlab::Error that building this model throws ("" when it builds).
std::string build_error(const ModelConfig& c) {
  try {
    Generator init(1);
    Seq2Seq model(c, init);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a config that cannot build a model is refused with an error naming its key") {
  const ModelConfig good = model_config(AttentionKind::scaled_dot);
  CHECK(build_error(good) == "");

  ModelConfig c = good;
  c.heads = 3;                                        // 8 is not divisible by 3
  CHECK(build_error(c).find("model.d_model") != std::string::npos);
  CHECK(build_error(c).find("model.heads") != std::string::npos);

  c = good;
  c.dropout = 1.0;
  CHECK(build_error(c).find("model.dropout") != std::string::npos);


  c = good;
  c.share_embeddings = true;                          // 11 source tokens, 13 target tokens
  CHECK(build_error(c).find("model.share_embeddings") != std::string::npos);
}

// ------------------------------------------------------------------ gradient checks exist

TEST_CASE("every layer type and the model have a gradient check") {
  std::set<std::string> checked;
  for (const GradcheckCase& c : all_gradcheck_cases()) checked.insert(c.op);
  for (const char* name : {"layer.linear", "layer.embedding", "layer.positional_learned", "layer.layer_norm",
                           "layer.feed_forward", "layer.encoder_layer", "layer.decoder_layer", "model.seq2seq",
                           "model.decoder_only"}) {
    INFO("without a gradient check: ", std::string(name));
    CHECK(checked.count(name) == 1);
  }
}
