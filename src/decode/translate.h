// translate.h — the one entry point from source ids to output ids: greedy when decode.beam is 1, beam search
// otherwise, both on the decoder's cache (incremental decoding). Validation, `attnlab translate` and the
// evaluation commands all call this.
#pragma once

#include <cstdint>
#include <vector>

#include "decode/beam_search.h"
#include "decode/config.h"
#include "model/transformer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// src [B, S] (pad-padded). Returns, per sentence, the output ids without bos and without eos, never pad or bos
// (greedy.h). Each sentence's output has at most max_len_ratio · (its source length) + max_len_extra tokens (eos
// included), and with learned positions at most model.max_len. Throws attnlab::Error when a source has more
// tokens than the model has positions (learned positions: model.max_len; greedy.h, position_limit).
std::vector<std::vector<int32_t>> translate_ids(Seq2Seq& model, const TokenIds& src, const DecodeConfig& config);

// Beam search (beam_search.h) of a batch of sentences with the model as the scorer; returns the best finished
// hypothesis of each sentence, scores included; `log` (optional) receives every step of the first sentence.
std::vector<Hypothesis> beam_search_decode(Seq2Seq& model, const TokenIds& src, const DecodeConfig& config,
                                           BeamLog* log = nullptr);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
