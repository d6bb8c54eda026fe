// test_trace.cpp — `attnlab trace` (src/inspect/maps/trace.h): one sentence through the model, stage by stage.
//
// The trace is only worth having if it is the model: its stages come in the order the code computes them, each
// with the shape the line prints, its logits are the model's output, and switching it on changes no number.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "autograd/graph.h"
#include "inspect/maps/trace.h"
#include "util/error.h"

using namespace attnlab;

namespace {

const std::vector<AttentionKind> kinds{AttentionKind::scaled_dot, AttentionKind::additive, AttentionKind::simplified,
                                       AttentionKind::sagan,      AttentionKind::external, AttentionKind::linear};
constexpr int64_t vocab = 12, d_model = 8, heads = 2, d_ff = 16;

// Encoder and decoder self-attention of `kind`; cross-attention too, except external (which cannot be cross).
ModelConfig config_for(AttentionKind kind, NormPlacement norm) {
  ModelConfig c;
  c.src_vocab = c.tgt_vocab = vocab;
  c.d_model = d_model;
  c.heads = heads;
  c.d_ff = d_ff;
  c.encoder_layers = 2;
  c.decoder_layers = 1;
  c.norm = norm;
  c.encoder_attention.kind = c.decoder_attention.kind = kind;
  c.cross_attention.kind = kind == AttentionKind::external ? AttentionKind::scaled_dot : kind;
  c.encoder_attention.memory_slots = c.decoder_attention.memory_slots = 5;
  return c;
}

// The stages each attention kind traces, in the order of its forward() in src/attention/<kind>.cpp.
std::vector<std::string> attention_stages(AttentionKind kind) {
  if (kind == AttentionKind::additive) return {"q", "k", "v", "tanh", "scores", "weights", "context", "out_proj"};
  if (kind == AttentionKind::sagan) return {"q", "k", "v", "scores", "weights", "context", "out"};
  if (kind == AttentionKind::external) return {"q", "scores", "token_softmax", "weights", "context", "out_proj"};
  if (kind == AttentionKind::linear) return {"q", "k", "v", "phi_q", "phi_k", "context", "out_proj"};
  return {"q", "k", "v", "scores", "weights", "context", "out_proj"};  // scaled_dot, simplified
}

// One residual sublayer as transformer.cpp's residual() computes it.
void add_sublayer(std::vector<std::string>& names, const std::string& layer, const std::string& sublayer,
                  const std::vector<std::string>& stages, const std::string& norm, bool pre) {
  if (pre) names.push_back(layer + "." + norm);
  for (const std::string& stage : stages) names.push_back(layer + "." + sublayer + "." + stage);
  names.push_back(layer + "." + sublayer + ".residual");
  if (!pre) names.push_back(layer + "." + norm);
}

// Reading order of Seq2Seq::encode and Seq2Seq::decode in src/model/transformer.cpp.
std::vector<std::string> expected_encoder(const ModelConfig& c) {
  const bool pre = c.norm == NormPlacement::pre;
  std::vector<std::string> names{"encoder.embed_tokens", "encoder.embed_positions"};
  for (int64_t i = 0; i < c.encoder_layers; ++i) {
    const std::string layer = "encoder.layers." + std::to_string(i);
    add_sublayer(names, layer, "self_attn", attention_stages(c.encoder_attention.kind), "self_attn_layer_norm", pre);
    add_sublayer(names, layer, "ffn", {"hidden", "linear2"}, "final_layer_norm", pre);
  }
  if (pre) names.push_back("encoder.layer_norm");
  return names;
}

std::vector<std::string> expected_decoder(const ModelConfig& c) {
  const bool pre = c.norm == NormPlacement::pre;
  std::vector<std::string> names{"decoder.embed_tokens", "decoder.embed_positions"};
  for (int64_t i = 0; i < c.decoder_layers; ++i) {
    const std::string layer = "decoder.layers." + std::to_string(i);
    add_sublayer(names, layer, "self_attn", attention_stages(c.decoder_attention.kind), "self_attn_layer_norm", pre);
    add_sublayer(names, layer, "encoder_attn", attention_stages(c.cross_attention.kind), "encoder_attn_layer_norm",
                 pre);
    add_sublayer(names, layer, "ffn", {"hidden", "linear2"}, "final_layer_norm", pre);
  }
  if (pre) names.push_back("decoder.layer_norm");
  names.push_back("logits");
  return names;
}

std::vector<std::string> names_of(const std::vector<TracedTensor>& stages) {
  std::vector<std::string> names;
  for (const TracedTensor& stage : stages) names.push_back(stage.name);
  return names;
}

const TracedTensor& stage_named(const SentenceTrace& trace, const std::string& name) {
  for (const auto* stages : {&trace.encoder, &trace.decoder})
    for (const TracedTensor& stage : *stages)
      if (stage.name == name) return stage;
  throw Error("no stage named " + name);
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), sizeof(real) * size_t(a.numel())) == 0;
}

const std::vector<int32_t> source{4, 5, 6, 7, 8}, target{9, 10, 11, 4};   // S = 5, T = 1 + 4 = 5

std::unique_ptr<Tokenizer> word_tokenizer() {
  TokenizerConfig config;
  config.kind = TokenizerKind::word;
  return train_tokenizer(config, {"a b c d e f g h"}, "");            // 4 special ids + 8 words = 12
}

}  // namespace

TEST_CASE("the trace lists every stage in reading order, for post-LN and pre-LN and every attention kind") {
  for (NormPlacement norm : {NormPlacement::post, NormPlacement::pre}) {
    for (AttentionKind kind : kinds) {
      INFO("norm ", name_of(norm), ", attention ", name_of(kind));
      const ModelConfig c = config_for(kind, norm);
      Generator init(3);
      Seq2Seq model(c, init);
      const SentenceTrace trace = trace_sentence(model, source, target);
      CHECK(names_of(trace.encoder) == expected_encoder(c));
      CHECK(names_of(trace.decoder) == expected_decoder(c));
    }
  }
}

TEST_CASE("each stage has the shape its line prints, and the shapes of the paper") {
  const ModelConfig c = config_for(AttentionKind::scaled_dot, NormPlacement::post);
  Generator init(3);
  Seq2Seq model(c, init);
  const SentenceTrace trace = trace_sentence(model, source, target);
  const int64_t S = 5, T = 5, d_k = d_model / heads;
  CHECK(stage_named(trace, "encoder.layers.1.self_attn.q").value.shape() == Shape{1, heads, S, d_k});
  CHECK(stage_named(trace, "encoder.layers.1.self_attn.weights").value.shape() == Shape{1, heads, S, S});
  CHECK(stage_named(trace, "decoder.layers.0.encoder_attn.k").value.shape() == Shape{1, heads, S, d_k});
  CHECK(stage_named(trace, "decoder.layers.0.encoder_attn.scores").value.shape() == Shape{1, heads, T, S});
  CHECK(stage_named(trace, "decoder.layers.0.encoder_attn.out_proj").value.shape() == Shape{1, T, d_model});
  CHECK(stage_named(trace, "decoder.layers.0.ffn.hidden").value.shape() == Shape{1, T, d_ff});
  CHECK(stage_named(trace, "logits").value.shape() == Shape{1, T, vocab});
  for (const auto* stages : {&trace.encoder, &trace.decoder})
    for (const TracedTensor& stage : *stages) {
      const std::string line = format_stage(stage, 4);
      INFO(line);
      CHECK(line.rfind(stage.name + "  " + stage.value.shape().str(), 0) == 0);   // name, then its shape
    }
}

TEST_CASE("the logits line is the paper's path's forward output, and tracing changes no number of it") {
  for (NormPlacement norm : {NormPlacement::post, NormPlacement::pre}) {
    for (AttentionKind kind : kinds) {
      INFO("norm ", name_of(norm), ", attention ", name_of(kind));
      Generator init(5);
      Seq2Seq model(config_for(kind, norm), init);
      const SentenceTrace trace = trace_sentence(model, source, target);
      CHECK(model.compute_path() == ComputePath::fused);          // the trace put the model's own path back
      CHECK(trace.switched_to_paper_path);                        // and said it had left it

      // A trace runs the paper's path, the paper's chain op by op (model.path: paper): its lines are
      // tensors that path computed, and its logits are that path's, bit for bit.
      model.use_compute_path(ComputePath::paper);
      NoGradGuard no_graph;
      ForwardContext plain;                                       // no tracer
      TokenIds src{Shape{1, 5}, source}, tgt_in{Shape{1, 5}, trace.decoder_input};
      const Tensor untraced = model.forward(src, tgt_in, plain);
      CHECK(same_bits(trace.logits, untraced));
      CHECK(trace.decoder.back().name == "logits");
      CHECK(same_bits(trace.decoder.back().value, untraced));

      TraceRecorder recorder;
      ForwardContext traced;
      traced.tracer = &recorder;
      CHECK(same_bits(model.forward(src, tgt_in, traced), untraced));
      CHECK(recorder.stages.size() == trace.encoder.size() + trace.decoder.size());
    }
  }
}

TEST_CASE("traced decoder self-attention scores are −∞ on later positions, where the weights are 0") {
  Generator init(3);
  Seq2Seq model(config_for(AttentionKind::scaled_dot, NormPlacement::pre), init);
  const SentenceTrace trace = trace_sentence(model, source, target);
  const Tensor& scores = stage_named(trace, "decoder.layers.0.self_attn.scores").value;    // [1, h, T, T]
  const Tensor& weights = stage_named(trace, "decoder.layers.0.self_attn.weights").value;  // [1, h, T, T]
  const int64_t T = scores.size(2);
  for (int64_t head = 0; head < heads; ++head)
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j) {
        const int64_t at = (head * T + i) * T + j;
        CHECK((j > i) == std::isinf(scores.data()[at]));
        if (j > i) CHECK(weights.data()[at] == 0);
      }
  // The line shows the first row: query 0 sees only key 0.
  const std::string line = format_stage(stage_named(trace, "decoder.layers.0.self_attn.scores"), 3);
  CHECK(line.find("-inf     -inf") != std::string::npos);
}

TEST_CASE("a line shows the first N numbers of the first row, and marks that there are more") {
  const TracedTensor stage{"x", Tensor::from_values({2, 3}, {1.5, -2, 3, 4, 5, 6})};
  const std::string two = format_stage(stage, 2);
  CHECK(two.find("1.5000  -2.0000") != std::string::npos);
  CHECK(two.find("3.0000") == std::string::npos);
  CHECK(two.find("…") != std::string::npos);
  const std::string all = format_stage(stage, 10);
  CHECK(all.find("3.0000") != std::string::npos);
  CHECK(all.find("4.0000") == std::string::npos);   // the second row is not shown
  CHECK(all.find("…") == std::string::npos);
  CHECK(format_stage(stage, 2, 6).rfind("x       [2, 3]", 0) == 0);   // the name padded to 6
}

TEST_CASE("the full trace: ids with their tokens, every stage, then the most likely next tokens, best first") {
  auto tokenizer = word_tokenizer();
  REQUIRE(tokenizer->vocab_size() == vocab);
  Generator init(3);
  Seq2Seq model(config_for(AttentionKind::scaled_dot, NormPlacement::post), init);
  const SentenceTrace trace = trace_sentence(model, source, target);
  const std::vector<std::string> lines = format_trace(trace, *tokenizer, *tokenizer, 4, 3);

  const size_t T = trace.decoder_input.size();
  REQUIRE(lines.size() == 2 + trace.encoder.size() + trace.decoder.size() + T);
  CHECK(lines[0].rfind("encoder.input_ids", 0) == 0);
  CHECK(lines[0].find("4 " + tokenizer->pieces({4})[0] + " | 5 ") != std::string::npos);
  CHECK(lines[1 + trace.encoder.size()].rfind("decoder.input_ids", 0) == 0);
  CHECK(lines[1 + trace.encoder.size() + trace.decoder.size()].rfind("logits", 0) == 0);

  for (size_t t = 0; t < T; ++t) {
    const std::string& line = lines[lines.size() - T + t];
    INFO(line);
    CHECK(line.rfind("next[" + std::to_string(t) + "] after " + tokenizer->pieces({trace.decoder_input[t]})[0], 0) ==
          0);
    const real* row = trace.logits.data() + t * vocab;
    const int32_t best = static_cast<int32_t>(std::max_element(row, row + vocab) - row);
    CHECK(line.find(": " + tokenizer->pieces({best})[0] + " ") != std::string::npos);   // the top token first
    const int32_t follows = t + 1 < T ? trace.decoder_input[t + 1] : eos_id;
    CHECK(line.find("(target " + tokenizer->pieces({follows})[0] + " ") != std::string::npos);
  }
}

TEST_CASE("tracing an empty source sentence is refused with a message") {
  Generator init(3);
  Seq2Seq model(config_for(AttentionKind::scaled_dot, NormPlacement::post), init);
  CHECK_THROWS_WITH_AS(trace_sentence(model, {}, target), doctest::Contains("no tokens"), Error);
}
