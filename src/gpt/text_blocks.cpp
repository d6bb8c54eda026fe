// text_blocks.cpp — a text's documents as one stream of ids, its blocks, and the shift by one (text_blocks.h).
#include "gpt/text_blocks.h"

#include <algorithm>

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

TextBlocks text_blocks(const std::vector<std::string>& documents, const Tokenizer& tokenizer, int64_t block_length,
                       const std::string& where) {
  if (block_length < 1) throw Error(where + ": the block length must be at least 1, got " + std::to_string(block_length));
  TextBlocks text;
  text.block_length = block_length;
  std::vector<int32_t> stream;                                     // bos d_1 eos bos d_2 eos …
  for (const std::string& document : documents) {
    const std::vector<int32_t> ids = tokenizer.encode(document);
    if (ids.empty()) continue;
    stream.push_back(bos_id);
    stream.insert(stream.end(), ids.begin(), ids.end());
    stream.push_back(eos_id);
    ++text.documents;
  }
  if (text.documents == 0) throw Error(where + " has no text: every line is empty");
  text.tokens = static_cast<int64_t>(stream.size());
  const size_t T = static_cast<size_t>(block_length);
  for (size_t start = 0; start + 1 < stream.size(); start += T) {   // block k: s_{kT} … s_{kT+T}
    const size_t end = std::min(stream.size(), start + T + 1);
    text.blocks.emplace_back(stream.begin() + static_cast<std::ptrdiff_t>(start),
                             stream.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return text;
}

void shift_by_one(const std::vector<int32_t>& block, std::vector<int32_t>& tokens, std::vector<int32_t>& targets) {
  tokens.assign(block.begin(), block.end() - 1);                   // b_0 … b_{T−1}
  targets.assign(block.begin() + 1, block.end());                  // b_1 … b_T
}

TextBatch text_batch(const TextBlocks& text, const std::vector<size_t>& order, size_t first, size_t count) {
  const size_t last = std::min(order.size(), first + count);
  if (first >= last) throw Error("text_batch: no blocks from " + std::to_string(first));
  size_t T = 0;
  for (size_t k = first; k < last; ++k) T = std::max(T, text.blocks[order[k]].size() - 1);
  const int64_t B = static_cast<int64_t>(last - first);
  TextBatch batch;
  batch.tokens = {Shape{B, static_cast<int64_t>(T)}, std::vector<int32_t>(static_cast<size_t>(B) * T, pad_id)};
  batch.targets = batch.tokens;
  std::vector<int32_t> tokens, targets;
  for (size_t k = first; k < last; ++k) {
    shift_by_one(text.blocks[order[k]], tokens, targets);
    const size_t row = (k - first) * T;                            // padded on the right up to T
    std::copy(tokens.begin(), tokens.end(), batch.tokens.values.begin() + static_cast<std::ptrdiff_t>(row));
    std::copy(targets.begin(), targets.end(), batch.targets.values.begin() + static_cast<std::ptrdiff_t>(row));
    batch.real_targets += static_cast<int64_t>(targets.size());
  }
  return batch;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
