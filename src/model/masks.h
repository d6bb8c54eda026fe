// masks.h — building the attention masks of one batch from its token ids.
//
// Sentences in a batch have different lengths, so the shorter ones are padded with pad_id up to the longest.
// Three masks follow (attention.h, AttentionMask):
//   encoder self-attention:  every source position may see every real source token      (padding hidden)
//   decoder self-attention:  target position i may see real target tokens j ≤ i          (padding + causal)
//   cross-attention:         every target position may see every real source token       (padding hidden)
// Padded *query* rows still compute something, but nothing reads it: the loss ignores pad targets.
#pragma once

#include "attention/attention.h"
#include "tensor/token_ids.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Queries of `query_len` positions attending to the tokens `keys` ([B, T_k]); pad_id marks padding.
AttentionMask make_padding_mask(const TokenIds& keys, int64_t query_len, bool causal);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
