// greedy.cpp — batched greedy decoding, by re-running the decoder on the growing prefix (the reference) and
// incrementally with the decoder's cache (the fast path).
#include "decode/greedy.h"

#include <algorithm>
#include <limits>

#include "autograd/graph.h"
#include "decode/no_repeat_ngram.h"
#include "tensor/parallel.h"
#include "tensor/row_math.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

TokenIds pad_batch(const std::vector<std::vector<int32_t>>& sequences) {
  size_t longest = 1;
  for (const auto& s : sequences) longest = std::max(longest, s.size());
  TokenIds batch;
  batch.shape = Shape{static_cast<int64_t>(sequences.size()), static_cast<int64_t>(longest)};
  batch.values.assign(sequences.size() * longest, pad_id);
  for (size_t b = 0; b < sequences.size(); ++b) std::copy(sequences[b].begin(), sequences[b].end(), batch.values.begin() + b * longest);
  return batch;
}

std::vector<int64_t> real_lengths(const TokenIds& ids) {
  const int64_t B = ids.shape[0], T = ids.shape[1];
  std::vector<int64_t> lengths(static_cast<size_t>(B), 0);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < T; ++t) lengths[b] += ids.values[static_cast<size_t>(b * T + t)] != pad_id;
  }
  return lengths;
}

int64_t position_limit(const ModelConfig& model) {
  return model.positional == PositionalKind::learned ? model.max_len
                                                                       : std::numeric_limits<int64_t>::max();
}

std::vector<int64_t> output_length_limits(const TokenIds& src, const DecodeConfig& config, const ModelConfig& model) {
  std::vector<int64_t> limit;
  for (int64_t length : real_lengths(src)) {
    const int64_t wanted = static_cast<int64_t>(config.max_len_ratio * double(length)) + config.max_len_extra;
    limit.push_back(std::min(std::max<int64_t>(1, wanted), position_limit(model)));   // ≤ the decoder's positions
  }
  return limit;
}

bool may_output(int32_t token) { return token != pad_id && token != bos_id; }

// The obvious loop is `for (v) if (may_output(v) && logits[v] > logits[best]) best = v;` (strict: the first
// maximum stays). The ids that may not be output are the first two, so this is the first maximum of logits[2 …],
// found by row_argmax (tensor/row_math.h): the same answer, about 16 times faster (48 → 3 µs for a row of 8000)
// — the obvious loop was 14 % of batched greedy decoding's time with the base model.
static_assert(pad_id == 0 && bos_id == 1, "most_likely_output skips the first two ids: pad and bos");
int32_t most_likely_output(const real* logits, int64_t V) {
  constexpr int64_t first_output = 2;                                        // pad 0, bos 1
  if (V <= first_output) {
    throw Error("decoding: a target vocabulary of " + std::to_string(V) + " ids has no token to output");
  }
  return static_cast<int32_t>(first_output + row_argmax(logits + first_output, V - first_output));
}

std::vector<std::vector<int32_t>> greedy_decode(Seq2Seq& model, const TokenIds& src, const DecodeConfig& config) {
  NoGradGuard no_grad;                                   // inference: record no graph
  ForwardContext ctx;                                    // training = false: no dropout
  const int64_t B = src.shape[0];
  const std::vector<int64_t> limit = output_length_limits(src, config, model.config());   // per sentence
  const int64_t longest_limit = *std::max_element(limit.begin(), limit.end());

  Tensor memory = model.encode(src, ctx);                // [B, S, d], computed once
  std::vector<std::vector<int32_t>> prefix(static_cast<size_t>(B), std::vector<int32_t>{bos_id});
  std::vector<std::vector<int32_t>> output(static_cast<size_t>(B));
  std::vector<bool> finished(static_cast<size_t>(B), false);
  for (int64_t t = 0; t < longest_limit; ++t) {
    TokenIds tgt_in = pad_batch(prefix);                 // [B, t + 1]
    Tensor logits = model.decoder_logits(tgt_in, memory, src, ctx);  // [B, t + 1, V]: all of it recomputed
    const int64_t V = logits.size(2);
    bool all_done = true;
    for (int64_t b = 0; b < B; ++b) {
      if (finished[b]) {
        prefix[b].push_back(pad_id);                     // keeps the batch rectangular; masked as a key
        continue;
      }
      real* last = logits.data() + (b * (t + 1) + t) * V;         // the newest position's logits
      if (config.no_repeat_ngram > 0) ban_tokens(last, banned_next_tokens(output[b], config.no_repeat_ngram));
      const int32_t next = most_likely_output(last, V);
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

std::vector<std::vector<int32_t>> greedy_decode_cached(Seq2Seq& model, const TokenIds& src,
                                                       const DecodeConfig& config) {
  NoGradGuard no_grad;                                   // inference: record no graph
  ForwardContext ctx;                                    // training = false: no dropout
  const int64_t B = src.shape[0];
  const std::vector<int64_t> limit = output_length_limits(src, config, model.config());
  const int64_t longest_limit = *std::max_element(limit.begin(), limit.end());

  Tensor memory = model.encode(src, ctx);                                     // [B, S, d]
  DecoderState state = model.start_decoding(memory, src, longest_limit);     // caches for every layer
  std::vector<std::vector<int32_t>> output(static_cast<size_t>(B));
  std::vector<int64_t> sentence(static_cast<size_t>(B));                     // row r decodes sentence[r]
  for (int64_t b = 0; b < B; ++b) sentence[b] = b;
  TokenIds tokens;                                                           // [rows, 1], the newest tokens
  tokens.shape = Shape{B, 1};
  tokens.values.assign(static_cast<size_t>(B), bos_id);
  while (!sentence.empty()) {
    Tensor logits = model.decode_step(tokens, state, ctx);                  // [rows, V]: one position only
    const int64_t V = logits.size(1), rows = logits.size(0);
    std::vector<int32_t> best(static_cast<size_t>(rows));                    // each row's argmax, rows on all
    int32_t* pbest = best.data();                                            // threads when a batch is large
    real* plogits = logits.data();
    if (config.no_repeat_ngram > 0) {                                        // the repetition guard, row by row
      for (int64_t r = 0; r < rows; ++r) {
        ban_tokens(plogits + r * V, banned_next_tokens(output[sentence[r]], config.no_repeat_ngram));
      }
    }
    pbest[0] = most_likely_output(plogits, V);          // here, not in the threads: may throw (nothing to output)
    parallel_for(rows, worth_threads(rows * V), [=](int64_t r) {             // (tensor/parallel.h)
      if (r > 0) pbest[r] = most_likely_output(plogits + r * V, V);
    });
    std::vector<int64_t> keep;                                               // rows still decoding
    std::vector<int32_t> next_tokens;
    for (size_t r = 0; r < sentence.size(); ++r) {
      const int32_t next = best[r];
      std::vector<int32_t>& out = output[sentence[r]];
      const bool at_limit = static_cast<int64_t>(out.size()) + 1 >= limit[sentence[r]];
      if (next != eos_id) out.push_back(next);
      if (next == eos_id || at_limit) continue;                              // finished: its row leaves
      keep.push_back(static_cast<int64_t>(r));
      next_tokens.push_back(next);
    }
    if (keep.empty()) break;                                                 // every sentence finished
    if (keep.size() != sentence.size()) {                                    // drop the finished rows
      state.reorder(keep);
      std::vector<int64_t> kept_sentences;
      for (int64_t r : keep) kept_sentences.push_back(sentence[r]);
      sentence = std::move(kept_sentences);
    }
    tokens.shape = Shape{static_cast<int64_t>(next_tokens.size()), 1};
    tokens.values = std::move(next_tokens);
  }
  return output;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
