// validation.cpp — teacher-forced loss and accuracy, then greedy decoding of a sample for exact match and BLEU.
#include "train/validation.h"

#include <cmath>

#include "autograd/ops.h"
#include "decode/batched.h"
#include "decode/bleu.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

ValidationResult run_validation(Seq2Seq& model, const std::vector<Batch>& batches, const std::vector<EncodedPair>& pairs,
                          int64_t decode_samples, const DecodeConfig& decode, const Tokenizer* tgt_tokenizer,
                          const std::vector<std::string>* references) {
  NoGradGuard no_grad;
  ForwardContext ctx;  // evaluation: no dropout
  ValidationResult result;
  double loss_sum = 0;
  int64_t tokens = 0, correct = 0;
  for (const Batch& batch : batches) {
    Tensor logits = model.forward(batch.src, batch.tgt_in, ctx);              // [B, T, V]
    const int64_t positions = batch.targets.shape.numel(), V = logits.size(2);
    int64_t real_targets = 0;
    for (int64_t i = 0; i < positions; ++i) {
      int32_t target = batch.targets.values[static_cast<size_t>(i)];
      if (target == pad_id) continue;
      ++real_targets;
      const real* row = logits.data() + i * V;
      correct += (std::max_element(row, row + V) - row) == target;
    }
    // cross_entropy averages over the batch's real targets; weight it back to a sum.
    loss_sum += cross_entropy(logits, batch.targets, 0, pad_id).item() * static_cast<double>(real_targets);
    tokens += real_targets;
  }
  if (tokens > 0) {
    result.loss = loss_sum / static_cast<double>(tokens);
    result.perplexity = std::exp(result.loss);
    result.token_accuracy = static_cast<double>(correct) / static_cast<double>(tokens);
  }

  // Exact match on a sample, decoded greedily, sorted by length in batches of decode.batch_tokens (batched.h).
  const size_t n = std::min(pairs.size(), static_cast<size_t>(std::max<int64_t>(decode_samples, 0)));
  int64_t exact = 0;
  std::vector<std::string> hypotheses, reference_text;  // detokenised, for BLEU
  const bool with_bleu = tgt_tokenizer != nullptr && references != nullptr;
  std::vector<std::vector<int32_t>> sources;
  for (size_t i = 0; i < n; ++i) sources.push_back(pairs[i].src);
  DecodeConfig greedy = decode;
  greedy.beam = 1;
  std::vector<std::vector<int32_t>> outputs = translate_batched(model, sources, greedy);
  for (size_t k = 0; k < n; ++k) {
    exact += outputs[k] == pairs[k].tgt;
    if (!with_bleu) continue;
    hypotheses.push_back(tgt_tokenizer->decode(outputs[k]));
    reference_text.push_back(references->at(pairs[k].index));
  }
  if (with_bleu && n > 0) result.bleu = corpus_bleu(hypotheses, reference_text).score;
  result.sentences_decoded = static_cast<int64_t>(n);
  result.exact_match = n ? static_cast<double>(exact) / static_cast<double>(n) : 0;
  return result;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
