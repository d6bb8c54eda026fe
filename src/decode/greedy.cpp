// greedy.cpp — batched greedy decoding by re-running the decoder on the growing prefix.
#include "decode/greedy.h"

#include <algorithm>

#include "autograd/graph.h"

namespace attnlab::inline ATTNLAB_PRECISION {

TokenIds pad_batch(const std::vector<std::vector<int32_t>>& sequences) {
  size_t longest = 1;
  for (const auto& s : sequences) longest = std::max(longest, s.size());
  TokenIds batch;
  batch.shape = Shape{static_cast<int64_t>(sequences.size()), static_cast<int64_t>(longest)};
  batch.values.assign(sequences.size() * longest, pad_id);
  for (size_t b = 0; b < sequences.size(); ++b) std::copy(sequences[b].begin(), sequences[b].end(), batch.values.begin() + b * longest);
  return batch;
}

std::vector<std::vector<int32_t>> greedy_decode(Seq2Seq& model, const TokenIds& src, const DecodeConfig& config) {
  NoGradGuard no_grad;                                   // inference: record no graph
  ForwardContext ctx;                                    // training = false: no dropout
  const int64_t B = src.shape[0], S = src.shape[1];

  // Each sentence's own length limit, from its real (non-pad) source length.
  std::vector<int64_t> limit(static_cast<size_t>(B));
  int64_t longest_limit = 1;
  for (int64_t b = 0; b < B; ++b) {
    int64_t length = 0;
    for (int64_t s = 0; s < S; ++s) length += src.values[static_cast<size_t>(b * S + s)] != pad_id;
    limit[b] = std::max<int64_t>(1, static_cast<int64_t>(config.max_len_ratio * double(length)) + config.max_len_extra);
    longest_limit = std::max(longest_limit, limit[b]);
  }

  Tensor memory = model.encode(src, ctx);                // [B, S, d], computed once
  std::vector<std::vector<int32_t>> prefix(static_cast<size_t>(B), std::vector<int32_t>{bos_id});
  std::vector<std::vector<int32_t>> output(static_cast<size_t>(B));
  std::vector<bool> finished(static_cast<size_t>(B), false);
  for (int64_t t = 0; t < longest_limit; ++t) {
    TokenIds tgt_in = pad_batch(prefix);                 // [B, t + 1]
    Tensor logits = model.decode(tgt_in, memory, src, ctx);  // [B, t + 1, V]
    const int64_t V = logits.size(2);
    bool all_done = true;
    for (int64_t b = 0; b < B; ++b) {
      if (finished[b]) {
        prefix[b].push_back(pad_id);                     // keeps the batch rectangular; masked as a key
        continue;
      }
      const real* last = logits.data() + (b * (t + 1) + t) * V;   // the newest position's logits
      int32_t next = static_cast<int32_t>(std::max_element(last, last + V) - last);
      prefix[b].push_back(next);
      if (next == eos_id || static_cast<int64_t>(output[b].size()) + 1 >= limit[b]) {
        finished[b] = true;
        if (next != eos_id) output[b].push_back(next);
      } else {
        output[b].push_back(next);
      }
      all_done = all_done && finished[b];
    }
    if (all_done) break;
  }
  return output;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
