// batched.h — translating many sentences at once: sort by length, cut into batches of about the same size.
//
// Decoding one sentence at a time leaves a CPU mostly idle: each step is a handful of one-row products, too small
// to fill a core's vector units, let alone a second core. Decoding a batch of B sentences turns each step's
// products into B-row products for about the cost of one. The price of a batch is padding: every sentence in it is
// padded to the batch's longest, and the batch decodes until its longest output ends. So sentences are first
// sorted by length (as fairseq and Marian do), and consecutive ones are grouped while
//     sentences in the batch × longest source in the batch  ≤  decode.batch_tokens
// (a sentence longer than that is a batch of its own). The results come back in input order.
//
// Batching changes nothing a sentence can see: attention hides every padded key (−∞ before the softmax gives it a
// weight of exactly 0), and each row of a product depends on its own row alone. What it can change is the order in
// which a few sums are added up (a row of scores is summed over more, zero-weighted, keys), so logits may differ
// in the last bits — and the greedy argmax only where two tokens were tied to those bits. tests/decode/test_decode.cpp
// checks a trained model's outputs one at a time against batched, for greedy and for beam search.
#pragma once

#include <cstdint>
#include <vector>

#include "decode/config.h"
#include "model/transformer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// The batches for sources of these lengths: lists of indices into `lengths`, shortest sentences first, each list
// in input order within a length. Empty sources (length 0) are left out of every batch.
std::vector<std::vector<size_t>> length_batches(const std::vector<int64_t>& lengths, int64_t batch_tokens);

// translate_ids (translate.h) over length_batches(…, config.batch_tokens): one output per source, in input order;
// an empty source gets an empty output.
std::vector<std::vector<int32_t>> translate_batched(Seq2Seq& model, const std::vector<std::vector<int32_t>>& sources,
                                                    const DecodeConfig& config);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
