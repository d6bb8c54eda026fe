// greedy.h — greedy decoding: at every step take the single most likely next token.
//
//   y_0 = bos;   y_t = argmax_v p(v | y_<t, x)   until eos or the length limit.
// Two versions that must agree token for token (tests/decode/test_decode.cpp):
//   greedy_decode         re-runs the decoder over the whole prefix at every step — O(T²) position-passes for
//                         T output tokens; simple and obviously right: the reference.
//   greedy_decode_cached  feeds only the newest token, the decoder's keys and values kept in a cache
//                         (Seq2Seq::decode_step, attention.h) — O(T) position-passes; what translate_ids uses.
// Sentences are decoded as a batch. In the reference a finished sentence keeps being fed pad tokens (which
// attention ignores) to keep the batch rectangular; the cached version drops finished sentences' rows.
//
// The argmax runs over the tokens a decoder may output: every id but pad and bos. Neither is ever a target in
// training (the loss ignores pad, bos is only an input), yet an untrained or weak model can rank them first, and
// either in the middle of an output would be nonsense (pad would even hide the token from later positions).
// With decode.no_repeat_ngram = N > 0 the argmax also skips every token that would repeat an n-gram of N tokens
// of the output so far (no_repeat_ngram.h), in both versions.
// unk may be output: it is a training target wherever the vocabulary lacks a word, so "an unknown word here" is
// an honest answer, and banning it would force a wrong word in its place (fairseq allows it by default too).
#pragma once

#include <cstdint>
#include <vector>

#include "decode/config.h"
#include "model/transformer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// src [B, S] (pad-padded). Returns, per sentence, the output ids without bos and without the final eos.
// Length limit per sentence: max_len_ratio · (its source length) + max_len_extra tokens, eos included.
std::vector<std::vector<int32_t>> greedy_decode(Seq2Seq& model, const TokenIds& src, const DecodeConfig& config);
std::vector<std::vector<int32_t>> greedy_decode_cached(Seq2Seq& model, const TokenIds& src,
                                                       const DecodeConfig& config);

// The length limit of each sentence of src [B, S]: max(1, ⌊max_len_ratio · real tokens⌋ + max_len_extra), and at
// most position_limit(model): the L-th output token is predicted at decoder position L − 1 (bos is at 0).
std::vector<int64_t> output_length_limits(const TokenIds& src, const DecodeConfig& config, const ModelConfig& model);

// How many positions a sequence (source, or bos + output) can have: model.max_len with learned positions (the
// rows of their table), no limit (INT64_MAX) with sinusoidal positions or none.
int64_t position_limit(const ModelConfig& model);

// May a decoder output this token? Every id but pad and bos (see above).
bool may_output(int32_t token);
// The most likely token a decoder may output: argmax of logits [V] over may_output tokens, the first of equal
// maxima.
int32_t most_likely_output(const real* logits, int64_t V);

// The real (non-pad) tokens of each row of ids [B, T].
std::vector<int64_t> real_lengths(const TokenIds& ids);

// Pads a list of id sequences into a [B, max length] batch (pad_id fills).
TokenIds pad_batch(const std::vector<std::vector<int32_t>>& sequences);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
