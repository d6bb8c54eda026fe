// cloze_reader.h — a reader that answers cloze questions (data/synthetic/cloze.h) by pointing into the document.
//
//   document ids [B, n] ─ embed + positions ─ Encoder ─ D [B, n, d] ─┐
//                                                                     ├─ reader attention ─ s [B, n]
//   query ids    [B, m] ─ embed + positions ─ Encoder ─ Q [B, m, d] ─┘     (attention/reader.h)
//   P(w) = Σ_{i : document_i = w} s_i          [B, V]   pointer_sum (autograd/ops.h)
//   loss = −(1/B) Σ_b log P_b(answer_b)         [1]
//
// The encoder is the Transformer's (model/transformer.h: the same EncoderLayer, the config's model.d_model,
// heads, encoder_layers, norm, …); one encoder with one embedding table reads both the document and the query.
// The reader (model.reader) turns D and Q into s:
//   aoa        attention over attention (Cui et al. 2017): M = D Qᵀ, α, β, β̄, s = α β̄
//   as_reader  the attention-sum reader (Kadlec et al. 2016): s = softmax(D q), q = Q at the @placeholder
// The answer is always a word of the document: P is 0 for every other word, so the reader cannot be wrong by
// naming a word that is not there — only by pointing at the wrong one.
//
// Parameter names: embed_tokens.weight, embed_positions.weight (learned positions only),
// encoder.layers.0.self_attn.…, encoder.layer_norm.* (pre-LN). model.decoder_layers and the decoder's attention
// keys are not used.
#pragma once

#include <vector>

#include "attention/reader.h"
#include "model/config.h"
#include "model/transformer.h"
#include "nn/embedding.h"
#include "nn/layers.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// A batch of cloze questions, padded with pad_id.
struct ClozeBatch {
  TokenIds document;                  // [B, n]
  TokenIds query;                     // [B, m]
  std::vector<int64_t> placeholder;   // [B]: the position of @placeholder in each query
  std::vector<int32_t> answer;        // [B]: the answer's id (a word of the document)
};

// Pads questions (each a document's ids, a query's ids, the placeholder position and the answer id) into one
// batch. Throws attnlab::Error when a document or query is empty or the placeholder is outside its query.
struct ClozeExample {
  std::vector<int32_t> document, query;
  int64_t placeholder = 0;
  int32_t answer = 0;
};
ClozeBatch make_cloze_batch(const std::vector<ClozeExample>& examples);

class ClozeReader : public Module {
 public:
  // config.src_vocab is the vocabulary; config.reader chooses the attention. Throws attnlab::Error naming the key.
  ClozeReader(const ModelConfig& config, Generator& init);

  // P [B, V]: the probability that each word is the answer. maps (aoa only) receives α, β, β̄ and s.
  Tensor answer_distribution(const ClozeBatch& batch, ForwardContext& ctx, AoaMaps* maps = nullptr);
  // s [B, n]: the attention over document positions that P sums per word.
  Tensor document_attention(const ClozeBatch& batch, ForwardContext& ctx, AoaMaps* maps = nullptr);
  // −(1/B) Σ_b log P_b(answer_b), [1].
  Tensor loss(const ClozeBatch& batch, ForwardContext& ctx);

  const ModelConfig& config() const { return config_; }

 private:
  Tensor encode(const TokenIds& ids, ForwardContext& ctx);   // [B, T] → [B, T, d]
  ModelConfig config_;
  Embedding* embed_ = nullptr;
  PositionalEncoding* positions_ = nullptr;
  std::vector<EncoderLayer*> layers_;
  LayerNorm* final_norm_ = nullptr;   // pre-LN only
};

// The answer of each question: the word of highest P (the first such word of the document among equals), [B].
std::vector<int32_t> predicted_answers(const Tensor& P, const ClozeBatch& batch);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
