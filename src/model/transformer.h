// transformer.h — the encoder–decoder Transformer (Vaswani et al. 2017, §3.1, Figure 1).
//
// Encoder layer (N of them):             Decoder layer (N of them):
//   x = x + SelfAttn(x)     [+ norm]       y = y + CausalSelfAttn(y)      [+ norm]
//   x = x + FFN(x)          [+ norm]       y = y + CrossAttn(y, memory)   [+ norm]
//                                          y = y + FFN(y)                 [+ norm]
// Where the LayerNorm goes is `model.norm`:
//   post (the paper):  x = LayerNorm(x + Dropout(Sublayer(x)))
//   pre:               x = x + Dropout(Sublayer(LayerNorm(x))), plus one final LayerNorm after the stack —
//                      easier to train deep, because the residual path carries gradients untouched.
// Seq2Seq: memory = Encoder(embed(src)); logits = output_projection(Decoder(embed(tgt_in), memory)).
//
// Parameter names follow fairseq's Transformer, so a checkpoint reads like a PyTorch state dict:
//   encoder.embed_tokens.weight, encoder.embed_positions.weight (learned positions only),
//   encoder.layers.0.self_attn.{q,k,v,out}_proj.{weight,bias}, encoder.layers.0.self_attn_layer_norm.*,
//   encoder.layers.0.ffn.linear{1,2}.*, encoder.layers.0.final_layer_norm.*, encoder.layer_norm.* (pre-LN),
//   decoder.layers.0.encoder_attn.* (cross-attention), decoder.layers.0.encoder_attn_layer_norm.*, …,
//   output_projection.weight (absent when tied to the target embeddings).
#pragma once

#include <memory>
#include <vector>

#include "model/config.h"
#include "model/masks.h"
#include "nn/embedding.h"
#include "nn/layers.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// How every sublayer f (attention or feed-forward) is wired to the stream x it reads (model.norm, model.residual):
//   post, residual:  x = LayerNorm(x + Dropout(f(x)))      pre, residual:  x = x + Dropout(f(LayerNorm(x)))
//   post, none:      x = LayerNorm(Dropout(f(x)))          pre, none:      x = Dropout(f(LayerNorm(x)))
struct SublayerWiring {
  bool pre_norm = false;   // model.norm: pre
  bool residual = true;    // model.residual: false drops the "x +" (an ablation)
};

class EncoderLayer : public Module {
 public:
  EncoderLayer(const ModelConfig& config, const std::string& name, Generator& init);
  Tensor forward(const Tensor& x, const AttentionMask& self_mask, ForwardContext& ctx);   // [B, S, d] → same
  Attention& self_attn;
  LayerNorm& self_attn_layer_norm;
  FeedForward& ffn;
  LayerNorm& final_layer_norm;

 private:
  SublayerWiring wiring_;
  double dropout_;
};

// With cross_attention false the middle sublayer is not built: the layer of a decoder-only model, GPT
// (gpt/decoder_only.h) — fairseq's decoder layer with no_encoder_attn. Then forward() reads no memory and no
// cross mask (pass an empty Tensor and mask), and step() no cross cache (pass null).
class DecoderLayer : public Module {
 public:
  DecoderLayer(const ModelConfig& config, const std::string& name, Generator& init, bool cross_attention = true);
  Tensor forward(const Tensor& y, const Tensor& memory, const AttentionMask& self_mask,
                 const AttentionMask& cross_mask, ForwardContext& ctx);                   // [B, T, d] → same
  // Incremental decoding: the newest position only, y [B, 1, d] → [B, 1, d], its attentions reading and
  // extending the caches (attention.h). y_is_real [B]: 0 where the row's token is padding.
  Tensor step(const Tensor& y, const std::vector<uint8_t>& y_is_real, AttentionCache& self_cache,
              AttentionCache* cross_cache, ForwardContext& ctx);
  Attention& self_attn;
  LayerNorm& self_attn_layer_norm;
  Attention* encoder_attn;                      // cross-attention; null in a decoder-only model
  LayerNorm* encoder_attn_layer_norm;           // null with it
  FeedForward& ffn;
  LayerNorm& final_layer_norm;

 private:
  SublayerWiring wiring_;
  double dropout_;
};

// What the decoder remembers between steps of incremental decoding (chapter "Decoding"): per decoder layer the
// self-attention cache (grows by one position per step) and the cross-attention cache (the source's keys and
// values, fixed). Rows are hypotheses: one per sentence in greedy decoding, sentence × beam in beam search.
struct DecoderState {
  std::vector<AttentionCache> self;    // [decoder layers]
  std::vector<AttentionCache> cross;   // [decoder layers]
  int64_t position = 0;                // the target position the next step computes (0: bos)
  int64_t batch = 0;                   // rows
  // Row r of the new state is row rows[r] of the old one (rows may repeat or leave rows out).
  void reorder(const std::vector<int64_t>& rows);
};

class Seq2Seq : public Module {
 public:
  Seq2Seq(const ModelConfig& config, Generator& init);   // validates the config; throws attnlab::Error

  // src [B, S] → memory [B, S, d_model]
  Tensor encode(const TokenIds& src, ForwardContext& ctx);
  // The same from the source's token embeddings e = E[src] · √d_model [B, S, d] (positions not yet added) and src
  // for the padding mask: encode(src) = encode_embedded(E[src] · √d, src). For attributions to the embeddings
  // (src/inspect/maps/flow.cpp), which differentiate with respect to e and scale it.
  Tensor encode_embedded(const Tensor& e, const TokenIds& src, ForwardContext& ctx);
  // tgt_in [B, T] (bos + target), memory from encode(src) → logits [B, T, tgt_vocab]
  Tensor decoder_logits(const TokenIds& tgt_in, const Tensor& memory, const TokenIds& src, ForwardContext& ctx);
  // The decoder stack's output before the output layer, [B, T, d_model] (decoder_logits() = this · Wᵀ).
  Tensor decoder_output(const TokenIds& tgt_in, const Tensor& memory, const TokenIds& src, ForwardContext& ctx);
  // The training loss, label-smoothed cross-entropy of targets [B, T] (pad ignored), [1]: the same number and
  // gradients as cross_entropy(forward(src, tgt_in), targets, …), computed without the [B, T, V] logits.
  // When hard attention drew keys into ctx.sampled (nn/sampled.h), it also writes there what they earned: the
  // log-likelihood log p(y_t | the draws) of every target token, for the step's score_function_loss(sampled).
  Tensor loss(const TokenIds& src, const TokenIds& tgt_in, const TokenIds& targets, real label_smoothing,
              ForwardContext& ctx);
  Tensor forward(const TokenIds& src, const TokenIds& tgt_in, ForwardContext& ctx);      // both

  // Incremental decoding (call under NoGradGuard). start_decoding projects the source's keys and values for
  // every decoder layer (memory [B, S, d] from encode(src)) and makes room for `capacity` target positions;
  // decode_step feeds one token per row, tokens [B, 1] (position state.position), and returns that
  // position's logits [B, tgt_vocab] — what decoder_logits() of the whole prefix gives at its last position.
  DecoderState start_decoding(const Tensor& memory, const TokenIds& src, int64_t capacity);
  Tensor decode_step(const TokenIds& tokens, DecoderState& state, ForwardContext& ctx);

  const ModelConfig& config() const { return config_; }

 private:
  Tensor embed(const Embedding& table, const PositionalEncoding& positions, const TokenIds& ids,
               ForwardContext& ctx) const;
  ModelConfig config_;
  Embedding* src_embed_ = nullptr;              // owned as a child module
  Embedding* tgt_embed_ = nullptr;              // == src_embed_ when shared
  PositionalEncoding* src_positions_ = nullptr;
  PositionalEncoding* tgt_positions_ = nullptr;
  std::vector<EncoderLayer*> encoder_layers_;
  std::vector<DecoderLayer*> decoder_layers_;
  LayerNorm* encoder_norm_ = nullptr;           // pre-LN only
  LayerNorm* decoder_norm_ = nullptr;           // pre-LN only
  Tensor output_weight_;                         // [tgt_vocab, d_model]: own parameter, or the tied embedding
  // Hard attention's reward: log p(y_bt) under the decoder's output y [B, T, d] — with hard_clean_reward under
  // replayed_output(), the output again with dropout off and the same keys drawn.
  bool clean_reward() const;                                     // some hard attention sets hard_clean_reward
  Tensor replayed_output(const TokenIds& src, const TokenIds& tgt_in, const SampledChoices& drawn);   // [B, T, d]
};

// What hard attention's draws earned (nn/sampled.h): log p(y_bt) of every target token under a decoder's output
// y [B, T, d] and the output weight W [V, d] (logits y Wᵀ), no graph. Seq2Seq's and DecoderOnly's loss.
Rewards rewards_of(const Tensor& y, const Tensor& output_weight, const TokenIds& targets);

// Throws attnlab::Error naming the config key for anything that cannot build a model, including a model whose
// weights alone would not fit in the machine's memory (check_model_fits_memory with one copy).
void check_model_config(const ModelConfig& config);

// The parameters a Seq2Seq of this config has, counted from the config alone, before anything is allocated (and
// in double, so an absurd config cannot overflow it). Per layer, with d = d_model:
//   attention   4 (d² + d)  (q, k, v, out projections with biases; additive + d, external 2 (d² + d) + 2 S d_k,
//               simplified d² + d; sagan is counted as 4 (d² + d), more than it has)
//   FFN         2 d d_ff + d_ff + d,   each LayerNorm 2 d;   encoder layer: attention, FFN, 2 norms;
//   decoder layer: 2 attentions, FFN, 3 norms.  Then the embeddings (V_src d, and V_tgt d unless shared), the
//   learned positions (2 max_len d), pre-LN's two final norms, the output projection (V_tgt d unless tied).
// Exact for every kind but sagan, which it overestimates (tests/model/test_model.cpp).
double estimated_parameters(const ModelConfig& config);

// Refuses, naming the sizes, the estimate and the machine's memory, a model whose `copies` numbers per
// parameter would need more than the machine's memory: 1 copy for the weights (translating), 4 for training
// (weights, gradients, Adam's two moments). `what` names the copies in the message.
void check_model_fits_memory(const ModelConfig& config, int copies, const std::string& what);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
