// decode_test_support.h — the models and sentences the decoding tests share (test_decode.cpp in float32,
// f64_decode.cpp in float64): one small model per attention kind in every place incremental decoding must
// handle it, with random, non-degenerate parameters.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/transformer.h"

namespace attnlab::decode_testing {

struct DecodeCase {
  std::string name;   // "decoder linear", "cross sagan", …
  ModelConfig config;
};

// A small model (vocabularies 17 and 19, d_model 16, 2 heads, 2 + 2 layers, no dropout) with the given
// decoder self- and cross-attention; the encoder uses scaled_dot.
inline ModelConfig small_config(const AttentionConfig& decoder, const AttentionConfig& cross) {
  ModelConfig c;
  c.src_vocab = 17;
  c.tgt_vocab = 19;
  c.d_model = 16;
  c.heads = 2;
  c.d_ff = 32;
  c.encoder_layers = 2;
  c.decoder_layers = 2;
  c.dropout = 0;
  c.decoder_attention = decoder;
  c.cross_attention = cross;
  return c;
}

// Every attention kind as decoder self-attention (and scaled_dot with a window), every kind allowed as
// cross-attention (all but external; and scaled_dot with a window), and pre-LN with learned positions.
inline std::vector<DecodeCase> decode_cases() {
  std::vector<DecodeCase> cases;
  auto kind = [](AttentionKind k) {
    AttentionConfig a;
    a.kind = k;
    a.memory_slots = 6;
    return a;
  };
  AttentionConfig window = kind(AttentionKind::scaled_dot);
  window.has_window = true;
  window.window_left = 2;
  window.window_right = 1;
  for (AttentionKind k : attention_kinds()) {
    cases.push_back({"decoder " + name_of(k), small_config(kind(k), kind(AttentionKind::scaled_dot))});
  }
  cases.push_back({"decoder scaled_dot window [2, 1]", small_config(window, kind(AttentionKind::scaled_dot))});
  for (AttentionKind k : attention_kinds()) {
    if (k == AttentionKind::external) continue;    // self-attention only
    cases.push_back({"cross " + name_of(k), small_config(kind(AttentionKind::scaled_dot), kind(k))});
  }
  cases.push_back({"cross scaled_dot window [2, 1]", small_config(kind(AttentionKind::scaled_dot), window)});
  DecodeCase pre{"pre-LN, learned positions, decoder linear",
                 small_config(kind(AttentionKind::linear), kind(AttentionKind::additive))};
  pre.config.norm = NormPlacement::pre;
  pre.config.positional = PositionalKind::learned;
  pre.config.max_len = 64;
  cases.push_back(pre);
  return cases;
}

// A model whose parameters are all moved off their initial values by N(0, 0.5²) noise, so that an untrained
// model's outputs depend on its input: SAGAN's γ starts at 0 (its attention would add nothing), LayerNorm at
// γ = 1, β = 0.
inline std::unique_ptr<Seq2Seq> random_model(const ModelConfig& c, uint64_t seed = 7) {
  Generator init(seed);
  auto model = std::make_unique<Seq2Seq>(c, init);
  for (NamedParameter p : model->named_parameters()) {
    for (real& v : p.tensor.values()) v += static_cast<real>(0.5 * init.normal());
  }
  return model;
}

// `count` source sentences of 1 … 9 tokens drawn from ids 4 … vocab − 1 (no special tokens).
inline std::vector<std::vector<int32_t>> random_sentences(int64_t count, int64_t vocab, uint64_t seed = 3) {
  Generator gen(seed);
  std::vector<std::vector<int32_t>> sentences;
  for (int64_t i = 0; i < count; ++i) {
    std::vector<int32_t> s(static_cast<size_t>(1 + i * 4 % 9));
    for (int32_t& id : s) id = static_cast<int32_t>(gen.integer(4, vocab));
    sentences.push_back(s);
  }
  return sentences;
}

}  // namespace attnlab::decode_testing
