// reader.cpp — the attention-sum reader's and the attention-over-attention reader's attention (reader.h has the
// equations and the shapes; here each line is one of them).
#include "attention/reader.h"

#include <limits>
#include <string>

#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr real masked_out = -std::numeric_limits<real>::infinity();    // a mask entry that hides a position

// The additive mask of a softmax over `len` positions per batch row: [B, 1, len], 0 (real) or −∞ (padding).
Tensor additive_padding(const std::vector<uint8_t>& is_real, int64_t B, int64_t len) {
  Tensor mask = Tensor::zeros({B, 1, len});                             // [B, 1, len]
  for (int64_t p = 0; p < B * len; ++p) mask.data()[p] = is_real[static_cast<size_t>(p)] ? 0 : masked_out;
  return mask;
}

void check_padding(const ReaderPadding& padding, int64_t B, int64_t n, int64_t m, const char* who) {
  const std::string sizes = "[" + std::to_string(B) + ", " + std::to_string(n) + "] and [" + std::to_string(B) +
                            ", " + std::to_string(m) + "]";
  if (padding.batch != B || padding.document_len != n || padding.query_len != m ||
      padding.document_is_real.size() != static_cast<size_t>(B * n) ||
      padding.query_is_real.size() != static_cast<size_t>(B * m)) {
    throw Error(std::string(who) + ": the padding must describe documents and queries of " + sizes);
  }
  for (int64_t b = 0; b < B; ++b) {
    bool document = false, query = false;
    for (int64_t i = 0; i < n; ++i) document |= padding.document_is_real[static_cast<size_t>(b * n + i)] != 0;
    for (int64_t j = 0; j < m; ++j) query |= padding.query_is_real[static_cast<size_t>(b * m + j)] != 0;
    if (!document || !(query || m == 0)) {
      throw Error(std::string(who) + ": batch row " + std::to_string(b) + " has an empty " +
                  (document ? "query" : "document") + " (every position is padding)");
    }
  }
}

}  // namespace

Tensor attention_over_attention(const Tensor& D, const Tensor& Q, const ReaderPadding& padding, AoaMaps* maps) {
  if (D.rank() != 3 || Q.rank() != 3 || D.size(0) != Q.size(0) || D.size(2) != Q.size(2)) {
    throw Error("attention_over_attention: document D " + D.shape().str() + " and query Q " + Q.shape().str() +
                " must be [B, n, d] and [B, m, d] with the same B and d");
  }
  const int64_t B = D.size(0), n = D.size(1), m = Q.size(1);
  check_padding(padding, B, n, m, "attention_over_attention");
  Tensor M = matmul(D, Q, false, true);                                         // [B, n, m] = D Qᵀ
  // α: softmax over document positions, one per query word — softmax runs along the last axis, so along Mᵀ's rows.
  Tensor alpha_t = softmax(transpose(M, 1, 2),
                           additive_padding(padding.document_is_real, B, n));   // [B, m, n]
  Tensor alpha = transpose(alpha_t, 1, 2);                                      // [B, n, m]
  // β: softmax over query words, one per document position.
  Tensor beta = softmax(M, additive_padding(padding.query_is_real, B, m));      // [B, n, m]
  // β̄ = (1/n) Σ_i β_i over the real document positions only.
  Tensor document_real = Tensor::zeros({B, n, 1});                              // [B, n, 1], 1 or 0
  Tensor document_len = Tensor::zeros({B, 1});                                  // [B, 1], the real n
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      const real real_position = padding.document_is_real[static_cast<size_t>(b * n + i)] ? 1 : 0;
      document_real.data()[b * n + i] = real_position;
      document_len.data()[b] += real_position;
    }
  }
  Tensor beta_mean = divide(sum(mul(beta, document_real), 1), document_len);    // [B, m] = β̄
  // s = α β̄: each document position's attention from every query word, weighted by that word's β̄.
  Tensor s = reshape(matmul(alpha, reshape(beta_mean, {B, m, 1})), {B, n});     // [B, n]
  if (maps) *maps = AoaMaps{alpha, beta, beta_mean, s};
  return s;
}

Tensor attention_sum_scores(const Tensor& D, const Tensor& q, const ReaderPadding& padding) {
  if (D.rank() != 3 || q.rank() != 2 || D.size(0) != q.size(0) || D.size(2) != q.size(1)) {
    throw Error("attention_sum_scores: document D " + D.shape().str() + " and query vector q " + q.shape().str() +
                " must be [B, n, d] and [B, d] with the same B and d");
  }
  const int64_t B = D.size(0), n = D.size(1), d = D.size(2);
  check_padding(padding, B, n, padding.query_len, "attention_sum_scores");
  Tensor scores = matmul(reshape(q, {B, 1, d}), D, false, true);                // [B, 1, n] = q · D_i
  return reshape(softmax(scores, additive_padding(padding.document_is_real, B, n)), {B, n});   // [B, n]
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
