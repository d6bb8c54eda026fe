// reader.h — attention for reading comprehension: where in the document is the answer to the query?
//
// A cloze reader (data/synthetic/cloze.h) has encoded the document, D [B, n, d] (one vector per document word), and the
// query, Q [B, m, d]. It answers by pointing: s [B, n] is an attention over the document positions, and the
// probability of word w is the attention on every position where w stands (pointer_sum, autograd/ops.h).
// Two ways to get s, the family's two readers (model/cloze_reader.h trains either):
//
// Attention-sum reader (Kadlec et al. 2016, §3):  one query vector q [B, d] (here: the query encoder's output at
// the @placeholder) scores every document position:
//     s = softmax_i(D_i · q)                                             [B, n]
//
// Attention-over-attention reader (Cui et al. 2017, §3.2–3.4):  every query word scores every document word,
//     M = D Qᵀ                                    [B, n, m]   the pair-wise matching scores
//     α = softmax over document positions i of M  [B, n, m]   column j: "query-to-document" attention of word j
//     β = softmax over query words j of M         [B, n, m]   row i: "document-to-query" attention of position i
//     β̄ = (1/n) Σ_i β_i                           [B, m]      how much each query word matters, on average
//     s = α β̄                                     [B, n]      the query words' attentions, weighted by β̄
// attention attended by attention: β̄ decides which query word's α to trust (in a cloze query, the words next
// to the placeholder should win). Everything is the paper's chain of plain ops (matmul, transpose, softmax, mul,
// sum, divide); no new kernel.
//
// Padding: a batch pads documents to n and queries to m. A padded document position must get s = 0 (it is no
// answer) and must not count in β̄'s mean (n is the document's real length); a padded query word must get no
// weight in β (so β̄_j = 0 for it, and its α column is ignored). Both are −∞ entries of the softmaxes' additive
// masks, and a 0/1 factor in β̄'s mean. tests/cloze/test_cloze.cpp checks that changing padded tokens leaves P unchanged.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Which positions of a batch are real: [B · n] and [B · m], 1 for a real token, 0 for padding. Every document and
// every query must have at least one real position (else attnlab::Error).
struct ReaderPadding {
  int64_t batch = 0, document_len = 0, query_len = 0;
  std::vector<uint8_t> document_is_real;   // [B · n]
  std::vector<uint8_t> query_is_real;      // [B · m]
};

// What attention-over-attention computed, for pictures (`attnlab attention`) and tests.
struct AoaMaps {
  Tensor alpha;       // [B, n, m]  softmax over document positions i (each column sums to 1)
  Tensor beta;        // [B, n, m]  softmax over query words j (each real row sums to 1)
  Tensor beta_mean;   // [B, m]     β̄
  Tensor s;           // [B, n]     α β̄
};

// D [B, n, d], Q [B, m, d] → s [B, n]. maps (optional) receives α, β, β̄ and s.
Tensor attention_over_attention(const Tensor& D, const Tensor& Q, const ReaderPadding& padding,
                                AoaMaps* maps = nullptr);

// D [B, n, d], q [B, d] → s [B, n] = softmax_i(D_i · q), padded positions 0.
Tensor attention_sum_scores(const Tensor& D, const Tensor& q, const ReaderPadding& padding);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
