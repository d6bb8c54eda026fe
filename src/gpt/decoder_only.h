// decoder_only.h — GPT: the Transformer's decoder alone, predicting the next token of one text (Radford et al.
// 2018, "Improving language understanding by generative pre-training"; Liu et al. 2018 before them).
//
// Figure 1's right half without the left half, and so without the cross-attention that read it:
//   x_0    = Dropout(E[t] · √d_model + P[0:T])                 tokens t [B, T] → [B, T, d]
//   x_l    = DecoderLayer_l(x_{l−1})   masked self-attention, then the FFN   (no encoder_attn; transformer.h)
//   logits = x_N Wᵀ                                            [B, T, V];  W = E with model.tie_output
// Trained on one text cut into blocks (gpt/text_blocks.h): the model reads t_0 … t_{T−1} and predicts, at every
// position i at once, the next token t_{i+1}:
//   loss = −1/T Σ_i log softmax(logits_i)[t_{i+1}]
// Nothing else changes from the translator: the same layers, the same causal mask (position i sees j ≤ i, the only
// thing that stops it from reading its answer), the same KV cache when it generates one token after another.
//
// Parameter names are fairseq's TransformerLanguageModel's (its decoder with no_encoder_attn), the decoder half of
// Seq2Seq's: decoder.embed_tokens.weight, decoder.embed_positions.weight (learned positions only),
// decoder.layers.0.self_attn.{q,k,v,out}_proj.*, decoder.layers.0.{self_attn_layer_norm,ffn,final_layer_norm}.*,
// decoder.layer_norm.* (pre-LN), output_projection.weight (absent when tied).
// Of model.*: the vocabulary is tgt_vocab (= src_vocab, one tokenizer), the layers decoder_layers, the attention
// model.attention.decoder; encoder_layers, share_embeddings and the encoder's and cross attention are not read.
#pragma once

#include <vector>

#include "model/transformer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

class DecoderOnly : public Module {
 public:
  DecoderOnly(const ModelConfig& config, Generator& init);   // validates the config; throws attnlab::Error

  // tokens [B, T] → the last layer's output [B, T, d_model] (pad tokens are masked as keys).
  Tensor output(const TokenIds& tokens, ForwardContext& ctx);
  // tokens [B, T] → logits [B, T, V]: position i's scores for the token after t_i.
  Tensor logits(const TokenIds& tokens, ForwardContext& ctx);
  // The training loss, label-smoothed cross-entropy of targets [B, T] (targets = tokens shifted by one; pad ignored),
  // [1]; the same number and gradients as cross_entropy(logits(tokens), targets, …). Hard attention's draws get
  // their rewards log p(t_{i+1}) in ctx.sampled, as in Seq2Seq::loss.
  Tensor loss(const TokenIds& tokens, const TokenIds& targets, real label_smoothing, ForwardContext& ctx);

  // Generation (call under NoGradGuard): start_generating makes room in every layer's self-attention cache for
  // `capacity` positions of `batch` rows; step feeds one token per row, tokens [B, 1] at position state.position,
  // and returns that position's logits [B, V] — what logits() of the whole prefix gives at its last position.
  // DecoderState's cross caches stay empty.
  DecoderState start_generating(int64_t batch, int64_t capacity);
  Tensor step(const TokenIds& tokens, DecoderState& state, ForwardContext& ctx);

  const ModelConfig& config() const { return config_; }

 private:
  ModelConfig config_;
  Embedding* embed_ = nullptr;
  PositionalEncoding* positions_ = nullptr;
  std::vector<DecoderLayer*> layers_;
  LayerNorm* final_norm_ = nullptr;          // pre-LN only
  Tensor output_weight_;                     // [V, d_model]: own parameter, or the tied embedding
  Tensor replayed_output(const TokenIds& tokens, const SampledChoices& drawn);   // hard_clean_reward's second pass
};

// Throws attnlab::Error naming the key for a config a decoder-only model cannot be built from.
void check_decoder_only_config(const ModelConfig& config);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
