// cloze_reader.cpp — the cloze reader: encode document and query, attend, point, sum (cloze_reader.h).
#include "cloze/cloze_reader.h"

#include <algorithm>
#include <string>

#include "autograd/ops.h"
#include "model/masks.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// The log of 0 is −∞: a reader sure of a wrong answer would stop training with an infinite loss. P(answer) + ε
// caps the loss at −log ε ≈ 20.7 and changes nothing a reader that is not certainly wrong would notice.
constexpr real probability_floor = static_cast<real>(1e-9);

// Rows of ids padded to the longest with pad_id: [B, T].
TokenIds padded(const std::vector<const std::vector<int32_t>*>& rows) {
  size_t longest = 0;
  for (const auto* row : rows) longest = std::max(longest, row->size());
  TokenIds ids{Shape{static_cast<int64_t>(rows.size()), static_cast<int64_t>(longest)},
               std::vector<int32_t>(rows.size() * longest, pad_id)};
  for (size_t b = 0; b < rows.size(); ++b)
    std::copy(rows[b]->begin(), rows[b]->end(), ids.values.begin() + b * longest);
  return ids;
}

std::vector<uint8_t> real_positions(const TokenIds& ids) {
  std::vector<uint8_t> is_real(ids.values.size());
  for (size_t p = 0; p < ids.values.size(); ++p) is_real[p] = ids.values[p] != pad_id ? 1 : 0;
  return is_real;
}

}  // namespace

ClozeBatch make_cloze_batch(const std::vector<ClozeExample>& examples) {
  std::vector<const std::vector<int32_t>*> documents, queries;
  ClozeBatch batch;
  for (size_t b = 0; b < examples.size(); ++b) {
    const ClozeExample& e = examples[b];
    if (e.document.empty() || e.query.empty() || e.placeholder < 0 ||
        e.placeholder >= static_cast<int64_t>(e.query.size())) {
      throw Error("cloze batch: question " + std::to_string(b) + " has a document of " +
                  std::to_string(e.document.size()) + " and a query of " + std::to_string(e.query.size()) +
                  " tokens with its placeholder at " + std::to_string(e.placeholder) +
                  "; both must be non-empty and the placeholder inside the query");
    }
    documents.push_back(&e.document);
    queries.push_back(&e.query);
    batch.placeholder.push_back(e.placeholder);
    batch.answer.push_back(e.answer);
  }
  batch.document = padded(documents);
  batch.query = padded(queries);
  return batch;
}

ClozeReader::ClozeReader(const ModelConfig& c, Generator& init) : config_(c) {
  if (c.src_vocab < 5) throw Error("a cloze reader needs a vocabulary (model.src_vocab from the tokenizer)");
  check_model_config(c);
  embed_ = &register_module("embed_tokens", std::make_unique<Embedding>(c.src_vocab, c.d_model, init));
  positions_ = &register_module("embed_positions",
                                std::make_unique<PositionalEncoding>(c.positional, c.d_model, c.max_len, init));
  for (int64_t i = 0; i < c.encoder_layers; ++i) {
    const std::string name = "encoder.layers." + std::to_string(i);
    layers_.push_back(&register_module(name, std::make_unique<EncoderLayer>(c, name, init)));
  }
  if (c.norm == NormPlacement::pre)
    final_norm_ = &register_module("encoder.layer_norm", std::make_unique<LayerNorm>(c.d_model));
  use_compute_path(c.path);    // model.path
  use_gemm(c.gemm);            // model.gemm
  use_precision(c.precision);  // model.precision
}

Tensor ClozeReader::encode(const TokenIds& ids, ForwardContext& ctx) {
  const AttentionMask mask = make_padding_mask(ids, ids.shape[1], /*causal=*/false);
  Tensor x = positions_->forward(embed_->forward(ids));  // [B, T, d] = E[ids] · √d + P
  x = apply_dropout(x, config_.dropout, ctx);
  for (EncoderLayer* layer : layers_) x = layer->forward(x, mask, ctx);  // [B, T, d]
  return final_norm_ ? final_norm_->forward(x) : x;                      // [B, T, d]
}

Tensor ClozeReader::document_attention(const ClozeBatch& batch, ForwardContext& ctx, AoaMaps* maps) {
  const int64_t B = batch.document.shape[0], n = batch.document.shape[1], m = batch.query.shape[1];
  const ReaderPadding padding{B, n, m, real_positions(batch.document), real_positions(batch.query)};
  Tensor D = encode(batch.document, ctx);                                                       // [B, n, d]
  Tensor Q = encode(batch.query, ctx);                                                          // [B, m, d]
  if (config_.reader == ReaderKind::aoa) return attention_over_attention(D, Q, padding, maps);  // [B, n]
  // The attention-sum reader's query vector: the query encoder's output at the placeholder, q [B, d].
  std::vector<Tensor> rows;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t at = batch.placeholder[static_cast<size_t>(b)];
    rows.push_back(slice(slice(Q, 0, b, b + 1), 1, at, at + 1));  // [1, 1, d]
  }
  Tensor q = reshape(concat(rows, 0), {B, config_.d_model});  // [B, d]
  return attention_sum_scores(D, q, padding);                 // [B, n]
}

Tensor ClozeReader::answer_distribution(const ClozeBatch& batch, ForwardContext& ctx, AoaMaps* maps) {
  return pointer_sum(document_attention(batch, ctx, maps), batch.document, config_.src_vocab);  // [B, V]
}

Tensor ClozeReader::loss(const ClozeBatch& batch, ForwardContext& ctx) {
  Tensor P = answer_distribution(batch, ctx);  // [B, V]
  const int64_t B = P.size(0), V = P.size(1);
  Tensor is_answer = Tensor::zeros({B, V});  // [B, V], one-hot rows
  for (int64_t b = 0; b < B; ++b) is_answer.data()[b * V + batch.answer[static_cast<size_t>(b)]] = 1;
  Tensor p_answer = sum(mul(P, is_answer), 1);                           // [B] = P_b(answer_b)
  return scale(mean(log(add_scalar(p_answer, probability_floor))), -1);  // [1] = −mean log P(answer)
}

std::vector<int32_t> predicted_answers(const Tensor& P, const ClozeBatch& batch) {
  const int64_t B = batch.document.shape[0], n = batch.document.shape[1], V = P.size(1);
  std::vector<int32_t> answers;
  for (int64_t b = 0; b < B; ++b) {
    int32_t best = pad_id;
    real best_p = -1;
    for (int64_t i = 0; i < n; ++i) {  // the document's words, in order: the first wins ties
      const int32_t w = batch.document.values[static_cast<size_t>(b * n + i)];
      if (w != pad_id && P.data()[b * V + w] > best_p) {
        best = w;
        best_p = P.data()[b * V + w];
      }
    }
    answers.push_back(best);
  }
  return answers;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
