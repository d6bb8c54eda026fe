// batching.cpp — encoding pairs, padding them into batches, and the length-bucketed, reshuffled epoch order.
//
// One epoch of the Batcher, step by step:
//   1. a Generator seeded from (seed, epoch) shuffles the pairs;
//   2. a stable sort by (source length, target length) puts similar lengths together — stable, so pairs of
//      equal lengths keep the random order of step 1, and which of them share a batch changes every epoch;
//   3. the sorted list is cut greedily: a pair joins the current batch if the padded size
//      (B + 1) · (max S + max T + 1) stays within batch_tokens, otherwise it starts the next batch;
//   4. the same Generator shuffles the order of the batches, so short and long batches alternate at random.
// Shuffling is Fisher–Yates written out (shuffle(), batching.h), not std::shuffle, whose algorithm the C++ standard
// leaves to each library: the same seed must give the same batches with every compiler.
#include "data/batching.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <numeric>

#include "model/config.h"
#include "tensor/random.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

void check_batch_tokens(int64_t batch_tokens) {
  if (batch_tokens < 1) {
    throw Error("train.batch_tokens = " + std::to_string(batch_tokens) + ", but a batch needs at least 1 token");
  }
}

// One seed per (seed, epoch), well mixed so that neighbouring epochs get unrelated orders (SplitMix64's
// finaliser, Steele et al. 2014).
uint64_t epoch_seed(uint64_t seed, int64_t epoch_index) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (static_cast<uint64_t>(epoch_index) + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Stable sort of `order` by (source length, target length).
void sort_by_length(const std::vector<EncodedPair>& pairs, std::vector<size_t>& order) {
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (pairs[a].src.size() != pairs[b].src.size()) return pairs[a].src.size() < pairs[b].src.size();
    return pairs[a].tgt.size() < pairs[b].tgt.size();
  });
}

// Cuts `order` into consecutive batches, each within batch_tokens of padded size (or a single pair).
std::vector<std::vector<size_t>> cut_into_batches(const std::vector<EncodedPair>& pairs,
                                                  const std::vector<size_t>& order, int64_t batch_tokens) {
  std::vector<std::vector<size_t>> batches;
  std::vector<size_t> current;
  int64_t longest_src = 0, longest_tgt = 0;
  for (size_t i : order) {
    const auto src_length = static_cast<int64_t>(pairs[i].src.size());
    const auto tgt_length = static_cast<int64_t>(pairs[i].tgt.size());
    const int64_t S = std::max(longest_src, src_length);
    const int64_t T = std::max(longest_tgt, tgt_length);
    const int64_t B = static_cast<int64_t>(current.size()) + 1;
    if (!current.empty() && B * (S + T + 1) > batch_tokens) {
      batches.push_back(std::move(current));
      current.clear();
      longest_src = longest_tgt = 0;
    }
    current.push_back(i);
    longest_src = std::max(longest_src, src_length);
    longest_tgt = std::max(longest_tgt, tgt_length);
  }
  if (!current.empty()) batches.push_back(std::move(current));
  return batches;
}

}  // namespace

std::vector<EncodedPair> encode_pairs(const ParallelText& text, const Tokenizer& src_tokenizer,
                                      const Tokenizer& tgt_tokenizer, int64_t max_len, int64_t* too_long_skipped) {
  if (max_len < 1) throw Error("data.max_len = " + std::to_string(max_len) + ", but must be at least 1");
  if (text.src.size() != text.tgt.size()) {
    throw Error(text.description + ": " + std::to_string(text.src.size()) + " source sentences but " +
                std::to_string(text.tgt.size()) + " target sentences");
  }
  std::vector<EncodedPair> pairs;
  pairs.reserve(text.src.size());
  int64_t too_long = 0, encoded_empty = 0;
  for (size_t i = 0; i < text.src.size(); ++i) {
    EncodedPair pair{src_tokenizer.encode(text.src[i]), tgt_tokenizer.encode(text.tgt[i]), i};
    if (static_cast<int64_t>(pair.src.size()) > max_len || static_cast<int64_t>(pair.tgt.size()) > max_len) {
      ++too_long;
      continue;
    }
    // A side with no tokens at all would be an all-padding row, which attention cannot normalise over.
    if (pair.src.empty() || pair.tgt.empty()) {
      ++encoded_empty;
      continue;
    }
    pairs.push_back(std::move(pair));
  }
  if (too_long_skipped != nullptr) *too_long_skipped = too_long;
  if (encoded_empty > 0) {
    spdlog::warn("{}: {} pairs skipped because a side encoded to no tokens", text.description, encoded_empty);
  }
  return pairs;
}

int64_t padded_size(const std::vector<EncodedPair>& pairs, const std::vector<size_t>& which) {
  size_t longest_src = 0, longest_tgt = 0;
  for (size_t i : which) {
    longest_src = std::max(longest_src, pairs.at(i).src.size());
    longest_tgt = std::max(longest_tgt, pairs.at(i).tgt.size());
  }
  return static_cast<int64_t>(which.size() * (longest_src + longest_tgt + 1));
}

Batch make_batch(const std::vector<EncodedPair>& pairs, const std::vector<size_t>& which) {
  if (which.empty()) throw Error("make_batch: a batch needs at least one pair");
  size_t S = 0, T = 0;
  for (size_t i : which) {
    if (i >= pairs.size()) {
      throw Error("make_batch: pair " + std::to_string(i) + " asked for, but there are " +
                  std::to_string(pairs.size()));
    }
    S = std::max(S, pairs[i].src.size());
    T = std::max(T, pairs[i].tgt.size() + 1);  // + bos (in tgt_in) or eos (in targets)
  }
  const size_t B = which.size();

  Batch batch;
  batch.src.shape = Shape{static_cast<int64_t>(B), static_cast<int64_t>(S)};
  batch.tgt_in.shape = Shape{static_cast<int64_t>(B), static_cast<int64_t>(T)};
  batch.targets.shape = batch.tgt_in.shape;
  batch.src.values.assign(B * S, pad_id);      // [B, S]
  batch.tgt_in.values.assign(B * T, pad_id);   // [B, T]
  batch.targets.values.assign(B * T, pad_id);  // [B, T]
  for (size_t b = 0; b < B; ++b) {
    const EncodedPair& pair = pairs[which[b]];
    const size_t m = pair.tgt.size();
    std::copy(pair.src.begin(), pair.src.end(), batch.src.values.begin() + static_cast<std::ptrdiff_t>(b * S));
    batch.tgt_in.values[b * T] = bos_id;                     // tgt_in  = bos y_1 … y_m
    batch.targets.values[b * T + m] = eos_id;                // targets = y_1 … y_m eos
    for (size_t t = 0; t < m; ++t) {
      batch.tgt_in.values[b * T + t + 1] = pair.tgt[t];
      batch.targets.values[b * T + t] = pair.tgt[t];
    }
    batch.src_tokens += static_cast<int64_t>(pair.src.size());
    batch.tgt_tokens += static_cast<int64_t>(m + 1);
    batch.indices.push_back(pair.index);
  }
  return batch;
}

Batcher::Batcher(std::vector<EncodedPair> pairs, int64_t batch_tokens, uint64_t seed)
    : pairs_(std::move(pairs)), batch_tokens_(batch_tokens), seed_(seed) {
  check_batch_tokens(batch_tokens);
  if (pairs_.empty()) {
    throw Error("no sentence pairs to train on: every pair was empty or longer than data.max_len");
  }
  std::vector<size_t> order(pairs_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  sort_by_length(pairs_, order);
  batches_per_epoch_ = cut_into_batches(pairs_, order, batch_tokens_).size();
}

std::vector<Batch> Batcher::epoch(int64_t epoch_index) const {
  Generator generator(epoch_seed(seed_, epoch_index));
  std::vector<size_t> order(pairs_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  shuffle(order, generator);        // 1. random order …
  sort_by_length(pairs_, order);    // 2. … kept among pairs of equal lengths
  std::vector<std::vector<size_t>> groups = cut_into_batches(pairs_, order, batch_tokens_);  // 3.
  shuffle(groups, generator);       // 4.

  std::vector<Batch> batches;
  batches.reserve(groups.size());
  for (const std::vector<size_t>& group : groups) batches.push_back(make_batch(pairs_, group));
  return batches;
}

std::vector<Batch> fixed_batches(const std::vector<EncodedPair>& pairs, int64_t batch_tokens) {
  check_batch_tokens(batch_tokens);
  std::vector<size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  sort_by_length(pairs, order);
  std::vector<Batch> batches;
  for (const std::vector<size_t>& group : cut_into_batches(pairs, order, batch_tokens)) {
    batches.push_back(make_batch(pairs, group));
  }
  return batches;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
