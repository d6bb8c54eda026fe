// greedy.h — greedy decoding: at every step take the single most likely next token.
//
//   y_0 = bos;   y_t = argmax_v p(v | y_<t, x)   until eos or the length limit.
// This version recomputes the decoder over the whole prefix at every step — O(T²) decoder passes' worth of work
// for T output tokens, simple and obviously right. (Chapter "Decoding" adds cached keys and values.)
// Sentences are decoded as a batch; a finished sentence keeps being fed pad tokens, which attention ignores.
#pragma once

#include <cstdint>
#include <vector>

#include "model/transformer.h"
#include "train/config.h"

namespace attnlab::inline ATTNLAB_PRECISION {

// src [B, S] (pad-padded). Returns, per sentence, the output ids without bos and without the final eos.
// Length limit per sentence: max_len_ratio · (its source length) + max_len_extra.
std::vector<std::vector<int32_t>> greedy_decode(Seq2Seq& model, const TokenIds& src, const DecodeConfig& config);

// Pads a list of id sequences into a [B, max length] batch (pad_id fills).
TokenIds pad_batch(const std::vector<std::vector<int32_t>>& sequences);

}  // namespace attnlab::inline ATTNLAB_PRECISION
