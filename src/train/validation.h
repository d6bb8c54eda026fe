// validation.h — how well the model does on held-out sentences.
//
//   loss        mean cross-entropy per target token (no label smoothing: the true objective)
//   perplexity  e^loss — "as unsure as a uniform choice among this many tokens"
//   token accuracy   share of target positions where the most likely token is the right one (teacher forcing)
//   exact match      share of sentences whose greedy translation equals the reference exactly
//   BLEU             corpus BLEU (src/decode/bleu.h) of the detokenised translations of the same sample
#pragma once

#include <string>
#include <vector>

#include "data/batching.h"
#include "data/tokenizers/tokenizer.h"
#include "decode/config.h"
#include "model/transformer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct ValidationResult {
  double loss = 0, perplexity = 0, token_accuracy = 0;
  double exact_match = 0;   // in [0, 1], over the decoded sample
  double bleu = 0;          // 0–100, over the decoded sample (0 when no tokenizer was given)
  int64_t sentences_decoded = 0;
};

// Loss, perplexity and token accuracy over `batches`; exact match of greedy decoding over the first
// `decode_samples` pairs of `pairs`. With `tgt_tokenizer` and `references` (the target sentences, indexed by
// EncodedPair::index) also BLEU of those translations, detokenised, against the reference text.
ValidationResult run_validation(Seq2Seq& model, const std::vector<Batch>& batches, const std::vector<EncodedPair>& pairs,
                          int64_t decode_samples, const DecodeConfig& decode,
                          const Tokenizer* tgt_tokenizer = nullptr, const std::vector<std::string>* references = nullptr);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
