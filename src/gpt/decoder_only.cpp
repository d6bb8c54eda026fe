// decoder_only.cpp — GPT from the translator's parts (decoder_only.h): embeddings, decoder layers built without
// cross-attention, the output layer; the loss of the next token; one step of generation on the KV cache.
#include "gpt/decoder_only.h"

#include <cmath>

#include "autograd/ops.h"
#include "kernels/kernels.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

void check_decoder_only_config(const ModelConfig& c) {
  ModelConfig decoder = c;
  decoder.encoder_layers = 1;  // not read: a decoder-only model has no encoder (0 is fine here)
  check_model_config(decoder);
  if (c.src_vocab != c.tgt_vocab) {
    throw Error("a decoder-only model has one vocabulary, but the tokenizers give " + std::to_string(c.src_vocab) +
                " and " + std::to_string(c.tgt_vocab) + " tokens; set tokenizer.shared: true");
  }
}

DecoderOnly::DecoderOnly(const ModelConfig& c, Generator& init) : config_(c) {
  check_decoder_only_config(c);
  embed_ = &register_module("decoder.embed_tokens", std::make_unique<Embedding>(c.tgt_vocab, c.d_model, init));
  positions_ = &register_module("decoder.embed_positions",
                                std::make_unique<PositionalEncoding>(c.positional, c.d_model, c.max_len, init));
  for (int64_t i = 0; i < c.decoder_layers; ++i) {
    std::string name = "decoder.layers." + std::to_string(i);
    layers_.push_back(&register_module(name, std::make_unique<DecoderLayer>(c, name, init, /*cross_attention=*/false)));
  }
  if (c.norm == NormPlacement::pre)
    final_norm_ = &register_module("decoder.layer_norm", std::make_unique<LayerNorm>(c.d_model));
  if (c.tie_output) {
    output_weight_ = embed_->weight;  // the same tensor: one parameter, gradients from both uses add up
  } else {
    real bound = static_cast<real>(1.0 / std::sqrt(static_cast<double>(c.d_model)));
    output_weight_ =
        register_parameter("output_projection.weight", Tensor::uniform({c.tgt_vocab, c.d_model}, init, -bound, bound));
  }
  use_compute_path(c.path);    // model.path: every module computes by the same path
  use_gemm(c.gemm);            // model.gemm
  use_precision(c.precision);  // model.precision
}

Tensor DecoderOnly::output(const TokenIds& tokens, ForwardContext& ctx) {
  if (tokens.shape.rank() != 2) throw Error("DecoderOnly: tokens " + tokens.shape.str() + " must be [batch, time]");
  const int64_t T = tokens.shape[1];
  AttentionMask causal = make_padding_mask(tokens, T, /*causal=*/true);  // position i sees j ≤ i
  Tensor x = embed_->forward(tokens);                                    // [B, T, d] = E[t] · √d
  ctx.trace(*embed_, x);
  x = positions_->forward(x);  // [B, T, d] + P[0:T]
  ctx.trace(*positions_, x);
  x = apply_dropout(x, config_.dropout, ctx);
  for (DecoderLayer* layer : layers_) x = layer->forward(x, Tensor(), causal, AttentionMask(), ctx);  // [B, T, d]
  if (final_norm_) {
    x = final_norm_->forward(x);  // pre-LN's final norm
    ctx.trace(*final_norm_, x);
  }
  return x;
}

Tensor DecoderOnly::logits(const TokenIds& tokens, ForwardContext& ctx) {
  Tensor x = output(tokens, ctx);                                                          // [B, T, d]
  Tensor logits = matmul(x, output_weight_, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, T, V] = x Wᵀ
  ctx.trace(*this, "logits", logits);
  return logits;
}

Tensor DecoderOnly::loss(const TokenIds& tokens, const TokenIds& targets, real label_smoothing, ForwardContext& ctx) {
  if (targets.shape != tokens.shape) {
    throw Error("DecoderOnly::loss: targets " + targets.shape.str() + " must have the tokens' shape " +
                tokens.shape.str() + " (the same block shifted by one)");
  }
  Tensor x = output(tokens, ctx);                      // [B, T, d]
  if (ctx.sampled && !ctx.sampled->choices.empty()) {  // hard attention drew keys: their reward
    bool clean = config_.decoder_attention.kind == AttentionKind::hard && config_.decoder_attention.hard_clean_reward;
    ctx.sampled->rewards = rewards_of(clean ? replayed_output(tokens, *ctx.sampled) : x, output_weight_, targets);
  }
  if (!fused()) {
    Tensor logits = matmul(x, output_weight_, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, T, V]
    return cross_entropy(logits, targets, label_smoothing, pad_id);  // [1], pad positions ignored
  }
  return linear_cross_entropy(x, output_weight_, targets, label_smoothing, pad_id, gemm(), precision());  // fused
}

// hard_clean_reward: the output again with dropout off, each hard attention reading the keys it just drew.
Tensor DecoderOnly::replayed_output(const TokenIds& tokens, const SampledChoices& drawn) {
  NoGradGuard no_graph;
  ForwardContext replay;  // training false: no dropout
  replay.replay = &drawn;
  return output(tokens, replay);  // [B, T, d]
}

DecoderState DecoderOnly::start_generating(int64_t batch, int64_t capacity) {
  if (batch < 1 || capacity < 1) {
    throw Error("start_generating: batch (" + std::to_string(batch) + ") and capacity (" + std::to_string(capacity) +
                ") must be at least 1");
  }
  DecoderState state;
  state.batch = batch;
  for (DecoderLayer* layer : layers_) state.self.push_back(layer->self_attn.start_self_cache(batch, capacity));
  return state;
}

Tensor DecoderOnly::step(const TokenIds& tokens, DecoderState& state, ForwardContext& ctx) {
  if (tokens.shape.rank() != 2 || tokens.shape[0] != state.batch || tokens.shape[1] != 1) {
    throw Error("DecoderOnly::step: tokens " + tokens.shape.str() + " must be [" + std::to_string(state.batch) +
                ", 1], one per row of the state");
  }
  std::vector<uint8_t> is_real(tokens.values.size());  // [B]
  for (size_t b = 0; b < tokens.values.size(); ++b) is_real[b] = tokens.values[b] != pad_id;
  Tensor x = embed_->forward(tokens);                                               // [B, 1, d] = E[t_i] · √d
  x = apply_dropout(positions_->forward(x, state.position), config_.dropout, ctx);  // [B, 1, d] + P[i]
  for (size_t i = 0; i < layers_.size(); ++i) x = layers_[i]->step(x, is_real, state.self[i], nullptr, ctx);
  if (final_norm_) x = final_norm_->forward(x);
  ++state.position;
  x = reshape(x, {state.batch, x.size(2)});                                                     // [B, d]
  if (!fused()) return matmul(x, output_weight_, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, V]
  return linear(x, output_weight_, Tensor(), gemm(), precision());  // the same, on model.gemm
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
