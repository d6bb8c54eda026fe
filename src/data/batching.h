// batching.h — from sentence pairs to padded batches of ids, the way a Transformer is fed.
//
// A batch is a rectangle: B sentences padded to the longest source (S) and the longest target (T, plus one for
// bos / eos, see batch.h). Its cost is therefore the padded size
//     B · (S_max + T_max + 1)
// not the number of real tokens. Putting sentences of similar length together keeps the padding, and so the
// wasted work, small; that is length bucketing. The Batcher sorts the pairs by length (breaking ties at
// random), cuts the sorted list into batches whose padded size stays within batch_tokens, and shuffles the
// order of the batches. The training signal then comes in a random order without paying for padding.
//
// Everything random is drawn from a Generator seeded by (seed, epoch): the same seed and epoch always give the
// same batches, so a run resumed in the middle of epoch 7 sees exactly the batches an uninterrupted run would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "data/batch.h"
#include "data/corpus.h"
#include "data/tokenizers/tokenizer.h"
#include "tensor/random.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct EncodedPair {
  std::vector<int32_t> src, tgt;  // token ids without bos / eos
  size_t index = 0;               // the pair's position in its ParallelText
};

// Encodes every pair. Pairs with more than max_len tokens on either side are left out and counted in
// *too_long_skipped (when it is not null); the caller logs the count. max_len must be at least 1.
std::vector<EncodedPair> encode_pairs(const ParallelText& text, const Tokenizer& src_tokenizer,
                                      const Tokenizer& tgt_tokenizer, int64_t max_len, int64_t* too_long_skipped);

// One batch of pairs[which[0]], pairs[which[1]], …, in that order:
//   src      [B, S]     source ids, padded with pad_id
//   tgt_in   [B, T]     bos + target, padded       T = longest target + 1
//   targets  [B, T]     target + eos, padded
// src_tokens / tgt_tokens count the real (non-pad) entries of src / targets (tgt_tokens includes each eos:
// it is the number of predictions the loss scores). indices holds the pairs' index fields.
Batch make_batch(const std::vector<EncodedPair>& pairs, const std::vector<size_t>& which);

// The padded size B · (S_max + T_max + 1) of a batch of these pairs (T_max without the +1 of bos / eos).
int64_t padded_size(const std::vector<EncodedPair>& pairs, const std::vector<size_t>& which);

class Batcher {
 public:
  // Throws attnlab::Error when there are no pairs or batch_tokens < 1.
  Batcher(std::vector<EncodedPair> pairs, int64_t batch_tokens, uint64_t seed);

  // Every pair exactly once, in batches of padded size ≤ batch_tokens — except that a pair whose own padded
  // size exceeds batch_tokens is a batch of its own rather than being dropped. Batch order (and which of
  // several equally long pairs go together) is drawn from (seed, epoch_index).
  std::vector<Batch> epoch(int64_t epoch_index) const;

  // The number of batches epoch() returns; the same for every epoch, since batch boundaries depend only on the
  // sorted lengths.
  size_t batches_per_epoch() const { return batches_per_epoch_; }
  size_t pair_count() const { return pairs_.size(); }

 private:
  std::vector<EncodedPair> pairs_;
  int64_t batch_tokens_;
  uint64_t seed_;
  size_t batches_per_epoch_ = 0;
};

// Batches for validation and test: sorted by length (ties in corpus order) and cut by the same rule, no
// shuffling, so every call gives the same batches. Batch.indices says which pairs each batch holds.
std::vector<Batch> fixed_batches(const std::vector<EncodedPair>& pairs, int64_t batch_tokens);

// Fisher–Yates: item i swaps with a uniformly chosen item 0…i, from the last item down. Written out rather than
// std::shuffle, whose algorithm the C++ standard leaves to each library: the same generator state gives the same
// order with every compiler. (The Batcher's epochs, and the cloze readers' questions: cloze/cloze_training.cpp.)
template <typename T>
void shuffle(std::vector<T>& items, Generator& generator) {
  for (size_t i = items.size(); i > 1; --i) {
    size_t j = static_cast<size_t>(generator.integer(0, static_cast<int64_t>(i)));
    std::swap(items[i - 1], items[j]);
  }
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
