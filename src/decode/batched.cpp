// batched.cpp — sort by length, batch by tokens, translate, put back in input order (batched.h).
#include "decode/batched.h"

#include <algorithm>
#include <numeric>

#include "decode/greedy.h"
#include "decode/translate.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<std::vector<size_t>> length_batches(const std::vector<int64_t>& lengths, int64_t batch_tokens) {
  if (batch_tokens < 1) throw Error("decode.batch_tokens must be at least 1, got " + std::to_string(batch_tokens));
  std::vector<size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return lengths[a] < lengths[b]; });
  std::vector<std::vector<size_t>> batches;
  std::vector<size_t> batch;
  for (size_t i : order) {
    if (lengths[i] == 0) continue;                          // nothing to translate
    // Sorted, so this sentence is the longest of the batch so far: the batch would cost (size + 1) · lengths[i].
    if (!batch.empty() && static_cast<int64_t>(batch.size() + 1) * lengths[i] > batch_tokens) {
      batches.push_back(std::move(batch));
      batch.clear();
    }
    batch.push_back(i);
  }
  if (!batch.empty()) batches.push_back(std::move(batch));
  return batches;
}

std::vector<std::vector<int32_t>> translate_batched(Seq2Seq& model, const std::vector<std::vector<int32_t>>& sources,
                                                    const DecodeConfig& config) {
  std::vector<int64_t> lengths(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) lengths[i] = static_cast<int64_t>(sources[i].size());
  std::vector<std::vector<int32_t>> outputs(sources.size());
  for (const std::vector<size_t>& batch : length_batches(lengths, config.batch_tokens)) {
    std::vector<std::vector<int32_t>> ids;
    for (size_t i : batch) ids.push_back(sources[i]);
    std::vector<std::vector<int32_t>> out = translate_ids(model, pad_batch(ids), config);   // [batch] outputs
    for (size_t k = 0; k < batch.size(); ++k) outputs[batch[k]] = std::move(out[k]);
  }
  return outputs;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
