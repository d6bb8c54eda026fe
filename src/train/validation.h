// validation.h — how well the model does on held-out sentences.
//
//   loss        mean cross-entropy per target token (no label smoothing: the true objective)
//   perplexity  e^loss — "as unsure as a uniform choice among this many tokens"
//   token accuracy   share of target positions where the most likely token is the right one (teacher forcing)
//   exact match      share of sentences whose greedy translation equals the reference exactly
#pragma once

#include <vector>

#include "data/batching.h"
#include "model/transformer.h"
#include "train/config.h"

namespace attnlab::inline ATTNLAB_PRECISION {

struct ValidationResult {
  double loss = 0, perplexity = 0, token_accuracy = 0;
  double exact_match = 0;   // in [0, 1], over the decoded sample
  int64_t sentences_decoded = 0;
};

// Loss, perplexity and token accuracy over `batches`; exact match of greedy decoding over the first
// `decode_samples` pairs of `pairs`.
ValidationResult validate(Seq2Seq& model, const std::vector<Batch>& batches, const std::vector<EncodedPair>& pairs,
                          int64_t decode_samples, const DecodeConfig& decode);

}  // namespace attnlab::inline ATTNLAB_PRECISION
