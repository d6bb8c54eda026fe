// transformer.cpp — encoder and decoder layers, the stacks, and the Seq2Seq model around them.
#include "model/transformer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "autograd/ops.h"
#include "kernels/kernels.h"
#include "util/error.h"
#include "util/machine_memory.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

std::unique_ptr<Attention> named_attention(const ModelConfig& c, const AttentionConfig& a, AttentionUse use,
                                           const std::string& name, Generator& init) {
  std::unique_ptr<Attention> attention = make_attention(a, use, c.d_model, c.heads, c.dropout, init);
  attention->name = name;
  return attention;
}

// One sublayer, in either norm placement, with or without its residual connection (SublayerWiring):
//   post:  x = LayerNorm(x + Dropout(f(x)))          pre:  x = x + Dropout(f(LayerNorm(x)))
// A trace names the sublayer's output "<sublayer>.residual" and the norm's output by the norm's own name.
template <typename Sublayer>
Tensor sublayer(const Tensor& x, const Module& module, const LayerNorm& norm, SublayerWiring wiring, double p,
                ForwardContext& ctx, Sublayer&& f) {
  if (wiring.pre_norm) {
    Tensor normed = norm.forward(x);                                            // [B, T, d]
    ctx.trace(norm, normed);
    Tensor out = wiring.residual ? add_with_dropout(x, f(normed), p, ctx, module.compute_path())  // x + Dropout(f)
                                 : apply_dropout(f(normed), p, ctx);
    ctx.trace(module, "residual", out);
    return out;
  }
  Tensor sum = wiring.residual ? add_with_dropout(x, f(x), p, ctx, module.compute_path())  // [B, T, d] = x + Dropout(f(x))
                               : apply_dropout(f(x), p, ctx);
  ctx.trace(module, "residual", sum);
  Tensor normed = norm.forward(sum);                                            // [B, T, d]
  ctx.trace(norm, normed);
  return normed;
}

SublayerWiring wiring_of(const ModelConfig& c) { return {c.norm == NormPlacement::pre, c.residual}; }

}  // namespace

// ---------------------------------------------------------------- encoder layer

EncoderLayer::EncoderLayer(const ModelConfig& c, const std::string& name, Generator& init)
    : self_attn(register_module("self_attn", named_attention(c, c.encoder_attention, AttentionUse::encoder_self,
                                                             name + ".self_attn", init))),
      self_attn_layer_norm(register_module("self_attn_layer_norm", std::make_unique<LayerNorm>(c.d_model))),
      ffn(register_module("ffn", std::make_unique<FeedForward>(c.d_model, c.d_ff, c.activation,
                                                              c.dropout, init))),
      final_layer_norm(register_module("final_layer_norm", std::make_unique<LayerNorm>(c.d_model))),
      wiring_(wiring_of(c)),
      dropout_(c.dropout) {}

Tensor EncoderLayer::forward(const Tensor& x, const AttentionMask& self_mask, ForwardContext& ctx) {
  Tensor h = sublayer(x, self_attn, self_attn_layer_norm, wiring_, dropout_, ctx, [&](const Tensor& in) {
    return self_attn.forward(in, in, self_mask, ctx);                         // [B, S, d]
  });
  return sublayer(h, ffn, final_layer_norm, wiring_, dropout_, ctx,
                  [&](const Tensor& in) { return ffn.forward(in, ctx); });    // [B, S, d]
}

// ---------------------------------------------------------------- decoder layer

DecoderLayer::DecoderLayer(const ModelConfig& c, const std::string& name, Generator& init, bool cross_attention)
    : self_attn(register_module("self_attn", named_attention(c, c.decoder_attention, AttentionUse::decoder_self,
                                                             name + ".self_attn", init))),
      self_attn_layer_norm(register_module("self_attn_layer_norm", std::make_unique<LayerNorm>(c.d_model))),
      encoder_attn(!cross_attention ? nullptr
                                    : &register_module("encoder_attn", named_attention(c, c.cross_attention,
                                                       AttentionUse::cross, name + ".encoder_attn", init))),
      encoder_attn_layer_norm(!cross_attention ? nullptr
                                               : &register_module("encoder_attn_layer_norm",
                                                                  std::make_unique<LayerNorm>(c.d_model))),
      ffn(register_module("ffn", std::make_unique<FeedForward>(c.d_model, c.d_ff, c.activation,
                                                              c.dropout, init))),
      final_layer_norm(register_module("final_layer_norm", std::make_unique<LayerNorm>(c.d_model))),
      wiring_(wiring_of(c)),
      dropout_(c.dropout) {}

Tensor DecoderLayer::forward(const Tensor& y, const Tensor& memory, const AttentionMask& self_mask,
                             const AttentionMask& cross_mask, ForwardContext& ctx) {
  Tensor h = sublayer(y, self_attn, self_attn_layer_norm, wiring_, dropout_, ctx, [&](const Tensor& in) {
    return self_attn.forward(in, in, self_mask, ctx);                         // [B, T, d], causal
  });
  if (encoder_attn) {                                                         // not in a decoder-only model
    h = sublayer(h, *encoder_attn, *encoder_attn_layer_norm, wiring_, dropout_, ctx, [&](const Tensor& in) {
      return encoder_attn->forward(in, memory, cross_mask, ctx);              // [B, T, d], looks at the source
    });
  }
  return sublayer(h, ffn, final_layer_norm, wiring_, dropout_, ctx,
                  [&](const Tensor& in) { return ffn.forward(in, ctx); });    // [B, T, d]
}

Tensor DecoderLayer::step(const Tensor& y, const std::vector<uint8_t>& y_is_real, AttentionCache& self_cache,
                          AttentionCache* cross_cache, ForwardContext& ctx) {
  Tensor h = sublayer(y, self_attn, self_attn_layer_norm, wiring_, dropout_, ctx, [&](const Tensor& in) {
    return self_attn.step(in, y_is_real, self_cache);                         // [B, 1, d], keys so far
  });
  if (encoder_attn) {                                                         // not in a decoder-only model
    h = sublayer(h, *encoder_attn, *encoder_attn_layer_norm, wiring_, dropout_, ctx, [&](const Tensor& in) {
      return encoder_attn->step(in, y_is_real, *cross_cache);                 // [B, 1, d], the source
    });
  }
  return sublayer(h, ffn, final_layer_norm, wiring_, dropout_, ctx,
                  [&](const Tensor& in) { return ffn.forward(in, ctx); });    // [B, 1, d]
}

void DecoderState::reorder(const std::vector<int64_t>& rows) {
  for (AttentionCache& cache : self) cache.reorder(rows);
  for (AttentionCache& cache : cross) cache.reorder(rows);
  batch = static_cast<int64_t>(rows.size());
}

// ---------------------------------------------------------------- the whole model

namespace {

double attention_parameters(const AttentionConfig& a, double d, double heads) {
  const double projection = d * d + d;                                          // one d → d Linear with its bias
  switch (a.kind) {
    case AttentionKind::additive: return 4 * projection + d;                    // + the score vector of each head
    case AttentionKind::external: return 2 * projection + 2 * double(a.memory_slots) * (d / heads);   // M_k, M_v
    case AttentionKind::simplified: return projection;                          // out_proj only
    case AttentionKind::local_p: return 4 * projection + d * d + d;             // + W_p (no bias) and each head's v_p
    case AttentionKind::sagan:                                                  // fewer: Q, K project to d/8
    case AttentionKind::scaled_dot:
    case AttentionKind::linear:
    case AttentionKind::local_m:
    case AttentionKind::hard: return 4 * projection;
  }
  return 4 * projection;
}

}  // namespace

double estimated_parameters(const ModelConfig& c) {
  const double d = double(c.d_model), heads = double(c.heads), norm = 2 * d;
  const double ffn = 2 * d * double(c.d_ff) + double(c.d_ff) + d;
  const double encoder_layer = attention_parameters(c.encoder_attention, d, heads) + ffn + 2 * norm;
  const double decoder_layer = attention_parameters(c.decoder_attention, d, heads) +
                               attention_parameters(c.cross_attention, d, heads) + ffn + 3 * norm;
  double total = double(c.encoder_layers) * encoder_layer + double(c.decoder_layers) * decoder_layer;
  total += double(c.src_vocab) * d + (c.share_embeddings ? 0 : double(c.tgt_vocab) * d);
  if (c.positional == PositionalKind::learned) total += 2 * double(c.max_len) * d;
  if (c.norm == NormPlacement::pre) total += 2 * norm;
  if (!c.tie_output) total += double(c.tgt_vocab) * d;
  return total;
}

void check_model_fits_memory(const ModelConfig& c, int copies, const std::string& what) {
  const double parameters = estimated_parameters(c);
  const double needed = parameters * double(copies) * double(sizeof(real));
  const double memory = machine_memory_bytes();
  if (memory <= 0 || needed <= memory) return;
  char count[32];
  std::snprintf(count, sizeof count, "%.3g", parameters);
  throw Error("the model is too large for this machine: model.d_model = " + std::to_string(c.d_model) +
              ", model.d_ff = " + std::to_string(c.d_ff) + ", " + std::to_string(c.encoder_layers) + " + " +
              std::to_string(c.decoder_layers) + " layers and vocabularies of " + std::to_string(c.src_vocab) +
              " and " + std::to_string(c.tgt_vocab) + " tokens make about " + count + " parameters, and " + what +
              " (" + std::to_string(copies) + " × " + std::to_string(sizeof(real)) + " bytes per parameter) need " +
              "about " + bytes_text(needed) + ", but this machine has " + bytes_text(memory) +
              " of memory; make model.d_model, model.d_ff, the layers or tokenizer.vocab_size smaller");
}

void check_model_config(const ModelConfig& c) {
  auto positive = [](int64_t value, const char* key) {
    if (value <= 0) throw Error(std::string(key) + " must be a positive whole number, got " + std::to_string(value));
  };
  positive(c.src_vocab, "the source vocabulary size");
  positive(c.tgt_vocab, "the target vocabulary size");
  positive(c.d_model, "model.d_model");
  positive(c.heads, "model.heads");
  positive(c.d_ff, "model.d_ff");
  positive(c.encoder_layers, "model.encoder_layers");
  positive(c.decoder_layers, "model.decoder_layers");
  positive(c.max_len, "model.max_len");
  if (c.d_model % c.heads != 0) {
    throw Error("model.d_model (" + std::to_string(c.d_model) + ") must be divisible by model.heads (" +
                std::to_string(c.heads) + ")");
  }
  if (!(c.dropout >= 0 && c.dropout < 1)) {
    throw Error("model.dropout must be in [0, 1), got " + std::to_string(c.dropout));
  }
  if (c.share_embeddings && c.src_vocab != c.tgt_vocab) {
    throw Error("model.share_embeddings needs one vocabulary for both sides, but the source has " +
                std::to_string(c.src_vocab) + " tokens and the target " + std::to_string(c.tgt_vocab));
  }
  check_model_fits_memory(c, 1, "its weights");
}

Seq2Seq::Seq2Seq(const ModelConfig& c, Generator& init) : config_(c) {
  check_model_config(c);

  if (c.share_embeddings) {
    src_embed_ = tgt_embed_ = &register_module("shared", std::make_unique<Embedding>(c.src_vocab, c.d_model, init));
  } else {
    src_embed_ = &register_module("encoder.embed_tokens", std::make_unique<Embedding>(c.src_vocab, c.d_model, init));
  }
  src_positions_ = &register_module("encoder.embed_positions",
                                    std::make_unique<PositionalEncoding>(c.positional, c.d_model, c.max_len, init));
  for (int64_t i = 0; i < c.encoder_layers; ++i) {
    std::string name = "encoder.layers." + std::to_string(i);
    encoder_layers_.push_back(&register_module(name, std::make_unique<EncoderLayer>(c, name, init)));
  }
  if (c.norm == NormPlacement::pre) encoder_norm_ = &register_module("encoder.layer_norm", std::make_unique<LayerNorm>(c.d_model));

  if (!c.share_embeddings) {
    tgt_embed_ = &register_module("decoder.embed_tokens", std::make_unique<Embedding>(c.tgt_vocab, c.d_model, init));
  }
  tgt_positions_ = &register_module("decoder.embed_positions",
                                    std::make_unique<PositionalEncoding>(c.positional, c.d_model, c.max_len, init));
  for (int64_t i = 0; i < c.decoder_layers; ++i) {
    std::string name = "decoder.layers." + std::to_string(i);
    decoder_layers_.push_back(&register_module(name, std::make_unique<DecoderLayer>(c, name, init)));
  }
  if (c.norm == NormPlacement::pre) decoder_norm_ = &register_module("decoder.layer_norm", std::make_unique<LayerNorm>(c.d_model));

  if (c.tie_output) {
    output_weight_ = tgt_embed_->weight;     // the same tensor: one parameter, gradients from both uses add up
  } else {
    real bound = static_cast<real>(1.0 / std::sqrt(static_cast<double>(c.d_model)));
    output_weight_ = register_parameter("output_projection.weight",
                                        Tensor::uniform({c.tgt_vocab, c.d_model}, init, -bound, bound));
  }
  use_compute_path(c.path);                    // model.path: every module computes by the same path
  use_gemm(c.gemm);                            // model.gemm: … and runs its fused products on the same GEMM
  use_precision(c.precision);                  // model.precision: … in the same number format
}

Tensor Seq2Seq::embed(const Embedding& table, const PositionalEncoding& positions, const TokenIds& ids,
                      ForwardContext& ctx) const {
  Tensor x = table.forward(ids);                                              // [B, T, d] = E[ids] · √d
  ctx.trace(table, x);
  x = positions.forward(x);                                                   // [B, T, d] + P[0:T]
  ctx.trace(positions, x);
  return apply_dropout(x, config_.dropout, ctx);
}

Tensor Seq2Seq::encode(const TokenIds& src, ForwardContext& ctx) {
  Tensor e = src_embed_->forward(src);                                        // [B, S, d] = E[src] · √d
  ctx.trace(*src_embed_, e);
  return encode_embedded(e, src, ctx);
}

Tensor Seq2Seq::encode_embedded(const Tensor& e, const TokenIds& src, ForwardContext& ctx) {
  AttentionMask self_mask = make_padding_mask(src, src.shape[1], /*causal=*/false);
  Tensor x = src_positions_->forward(e);                                      // [B, S, d] + P[0:S]
  ctx.trace(*src_positions_, x);
  x = apply_dropout(x, config_.dropout, ctx);
  for (EncoderLayer* layer : encoder_layers_) x = layer->forward(x, self_mask, ctx);
  if (encoder_norm_) {
    x = encoder_norm_->forward(x);                                            // pre-LN's final norm
    ctx.trace(*encoder_norm_, x);
  }
  return x;                                                                   // [B, S, d] the "memory"
}

Tensor Seq2Seq::decoder_output(const TokenIds& tgt_in, const Tensor& memory, const TokenIds& src,
                               ForwardContext& ctx) {
  if (tgt_in.shape.rank() != 2 || src.shape.rank() != 2 || tgt_in.shape[0] != src.shape[0]) {
    throw Error("decode: source " + src.shape.str() + " and target " + tgt_in.shape.str() +
                " must be [batch, time] with the same batch");
  }
  const int64_t T = tgt_in.shape[1];
  AttentionMask self_mask = make_padding_mask(tgt_in, T, /*causal=*/true);
  AttentionMask cross_mask = make_padding_mask(src, T, /*causal=*/false);
  Tensor y = embed(*tgt_embed_, *tgt_positions_, tgt_in, ctx);                // [B, T, d]
  for (DecoderLayer* layer : decoder_layers_) y = layer->forward(y, memory, self_mask, cross_mask, ctx);
  if (decoder_norm_) {
    y = decoder_norm_->forward(y);                                            // pre-LN's final norm
    ctx.trace(*decoder_norm_, y);
  }
  return y;
}

Tensor Seq2Seq::decoder_logits(const TokenIds& tgt_in, const Tensor& memory, const TokenIds& src, ForwardContext& ctx) {
  Tensor y = decoder_output(tgt_in, memory, src, ctx);                        // [B, T, d]
  Tensor logits = matmul(y, output_weight_, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, T, V] = y Wᵀ
  ctx.trace(*this, "logits", logits);
  return logits;
}

Tensor Seq2Seq::loss(const TokenIds& src, const TokenIds& tgt_in, const TokenIds& targets, real label_smoothing,
                     ForwardContext& ctx) {
  Tensor memory = encode(src, ctx);                                           // [B, S, d]
  Tensor y = decoder_output(tgt_in, memory, src, ctx);                        // [B, T, d]
  if (ctx.sampled && !ctx.sampled->choices.empty()) {                       // hard attention drew keys: their
    const Tensor& judged = clean_reward() ? replayed_output(src, tgt_in, *ctx.sampled) : y;   // reward, for the
    ctx.sampled->rewards = rewards_of(judged, output_weight_, targets);                      // step's score_function_loss
  }
  if (!fused()) {
    Tensor logits = matmul(y, output_weight_, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, T, V] = y Wᵀ
    return cross_entropy(logits, targets, label_smoothing, pad_id);          // [1], pad positions ignored
  }
  // The same loss and gradients without ever holding the [B, T, V] logits (kernels/linear_cross_entropy.cpp).
  return linear_cross_entropy(y, output_weight_, targets, label_smoothing, pad_id, gemm(), precision());   // [1]
}

bool Seq2Seq::clean_reward() const {
  for (const AttentionConfig* a : {&config_.encoder_attention, &config_.decoder_attention, &config_.cross_attention}) {
    if (a->kind == AttentionKind::hard && a->hard_clean_reward) return true;
  }
  return false;
}

// hard_clean_reward: the decoder's output again, dropout off, each hard attention reading the keys it just drew,
// so that the reward log p(y | s) carries no dropout noise. No graph: the reward is a constant.
Tensor Seq2Seq::replayed_output(const TokenIds& src, const TokenIds& tgt_in, const SampledChoices& drawn) {
  NoGradGuard no_graph;
  ForwardContext replay;                                                      // training false: no dropout
  replay.replay = &drawn;
  return decoder_output(tgt_in, encode(src, replay), src, replay);            // [B, T, d]
}

// log p(y_bt) of every target token under the decoder's output y [B, T, d]: what the draws earned.
Rewards rewards_of(const Tensor& y, const Tensor& output_weight, const TokenIds& targets) {
  NoGradGuard no_graph;                                                       // the reward is a constant
  Tensor logits = matmul(y, output_weight, false, /*transpose_b=*/true);             // [B, T, V]
  const int64_t B = logits.size(0), T = logits.size(1), V = logits.size(2);
  Rewards rewards{B, T, std::vector<double>(static_cast<size_t>(B * T), 0.0),
                  std::vector<uint8_t>(static_cast<size_t>(B * T), 0), 0.0};
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      const int32_t target = targets.values[static_cast<size_t>(b * T + t)];
      if (target == pad_id) continue;
      const real* row = logits.data() + (b * T + t) * V;                      // [V]
      const double max = *std::max_element(row, row + V);
      double total = 0;                                                        // log p = z_y − max − log Σ e^(z − max)
      for (int64_t v = 0; v < V; ++v) total += std::exp(double(row[v]) - max);
      rewards.log_p[static_cast<size_t>(b * T + t)] = double(row[target]) - max - std::log(total);
      rewards.real[static_cast<size_t>(b * T + t)] = 1;
      rewards.tokens += 1;
    }
  return rewards;
}

DecoderState Seq2Seq::start_decoding(const Tensor& memory, const TokenIds& src, int64_t capacity) {
  if (src.shape.rank() != 2 || memory.rank() != 3 || memory.size(0) != src.shape[0] ||
      memory.size(1) != src.shape[1]) {
    throw Error("start_decoding: memory " + memory.shape().str() + " does not belong to the source " +
                src.shape.str());
  }
  std::vector<uint8_t> src_is_real(src.values.size());                       // [B · S]
  for (size_t i = 0; i < src.values.size(); ++i) src_is_real[i] = src.values[i] != pad_id;
  DecoderState state;
  state.batch = src.shape[0];
  for (DecoderLayer* layer : decoder_layers_) {
    state.self.push_back(layer->self_attn.start_self_cache(state.batch, capacity));
    state.cross.push_back(layer->encoder_attn->start_cross_cache(memory, src_is_real));
  }
  return state;
}

Tensor Seq2Seq::decode_step(const TokenIds& tokens, DecoderState& state, ForwardContext& ctx) {
  if (tokens.shape.rank() != 2 || tokens.shape[0] != state.batch || tokens.shape[1] != 1) {
    throw Error("decode_step: tokens " + tokens.shape.str() + " must be [" + std::to_string(state.batch) +
                ", 1], one per row of the decoder state");
  }
  std::vector<uint8_t> is_real(tokens.values.size());                        // [B]
  for (size_t b = 0; b < tokens.values.size(); ++b) is_real[b] = tokens.values[b] != pad_id;
  Tensor y = tgt_embed_->forward(tokens);                                     // [B, 1, d] = E[y_t] · √d
  y = apply_dropout(tgt_positions_->forward(y, state.position), config_.dropout, ctx);  // [B, 1, d] + P[t]
  for (size_t i = 0; i < decoder_layers_.size(); ++i) {
    y = decoder_layers_[i]->step(y, is_real, state.self[i], &state.cross[i], ctx);     // [B, 1, d]
  }
  if (decoder_norm_) y = decoder_norm_->forward(y);
  ++state.position;
  // The one position's rows [B, d] (a reshape of d numbers per row) times the output weight [V, d]ᵀ: the logits
  // come out as [B, V] directly, instead of [B, 1, V] and a copy of all B·V of them by a reshape.
  y = reshape(y, {state.batch, y.size(2)});                                   // [B, d]
  if (!fused()) return matmul(y, output_weight_, /*transpose_a=*/false, /*transpose_b=*/true);   // [B, V]
  return linear(y, output_weight_, Tensor(), gemm(), precision());            // the same, on model.gemm
}

Tensor Seq2Seq::forward(const TokenIds& src, const TokenIds& tgt_in, ForwardContext& ctx) {
  Tensor memory = encode(src, ctx);                                           // [B, S, d]
  return decoder_logits(tgt_in, memory, src, ctx);                                   // [B, T, V]
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
