// batch_stream.h — the training batches, epoch after epoch: where a training step takes its next batch from.
//
// An epoch is every training example once, in batches, in an order drawn for that epoch. The stream hands its
// batches out one at a time and draws the next epoch when they are used up; (epoch, batch_in_epoch) says where it
// is. How an epoch is drawn is the task's, a function draw(e) → epoch e's batches, called for e, e + 1, … in turn:
//   translation   Batcher::epoch(e) (batching.h): length-bucketed batches shuffled from (train.seed, e) alone, so
//                 (epoch, batch_in_epoch) is all a checkpoint needs for a resumed run to draw the same batches
//                 as a run never stopped (stream_of below; run/trainer.cpp)
//   cloze         the previous epoch's order of questions shuffled again, by one generator that runs on from
//                 epoch to epoch (cloze/cloze_training.cpp): epoch e can only be drawn after epoch e − 1, one
//                 reason a cloze run cannot be resumed
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "data/batch.h"
#include "data/batching.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

template <typename B>   // Batch (translation) or ClozeBatch (cloze/cloze_reader.h)
class BatchStream {
 public:
  using DrawEpoch = std::function<std::vector<B>(int64_t epoch)>;   // an epoch's batches, never none

  // Starts before batch `batch_in_epoch` of `epoch`; batch_in_epoch may be the epoch's batch count (the epoch is
  // used up: the next batch is the first of the next epoch).
  explicit BatchStream(DrawEpoch draw, int64_t epoch = 0, int64_t batch_in_epoch = 0)
      : draw_(std::move(draw)), epoch_(epoch), batch_in_epoch_(batch_in_epoch), epoch_batches_(draw_(epoch)) {}

  const B& next() {
    if (batch_in_epoch_ >= static_cast<int64_t>(epoch_batches_.size())) {   // the next epoch: a new order
      ++epoch_;
      batch_in_epoch_ = 0;
      epoch_batches_ = draw_(epoch_);
    }
    return epoch_batches_[static_cast<size_t>(batch_in_epoch_++)];
  }

  // Jumps to batch `batch_in_epoch` of `epoch` (under mpirun: rank 0's place, data_parallel_training.h).
  void move_to(int64_t epoch, int64_t batch_in_epoch) {
    epoch_ = epoch;
    batch_in_epoch_ = batch_in_epoch;
    epoch_batches_ = draw_(epoch_);
  }

  int64_t epoch() const { return epoch_; }                     // the epoch of the last batch taken
  int64_t batch_in_epoch() const { return batch_in_epoch_; }   // the next batch to take, in that epoch

 private:
  DrawEpoch draw_;
  int64_t epoch_;
  int64_t batch_in_epoch_;
  std::vector<B> epoch_batches_;   // draw_(epoch_)
};

// The batcher's epochs as a stream, from batch `batch_in_epoch` of `epoch` on (a new run: 0, 0). The batcher must
// outlive the stream.
BatchStream<Batch> stream_of(const Batcher& batcher, int64_t epoch = 0, int64_t batch_in_epoch = 0);

// Batches of `items` things (the cloze readers' questions, a language model's blocks), epoch after epoch: each
// epoch shuffles the previous epoch's order again (Fisher–Yates, batching.h) with one generator seeded `seed`, and
// cuts it into batches of `per_batch` (≥ 1), the last one shorter; make(order, first, count) builds one batch of
// order[first], …, order[first + count − 1]. What make reads must outlive the stream.
template <typename B, typename Make>
BatchStream<B> shuffled_batches(size_t items, size_t per_batch, uint64_t seed, Make make) {
  std::vector<size_t> order(items);
  for (size_t i = 0; i < items; ++i) order[i] = i;
  const auto draw_epoch = [make, per_batch, order, shuffle_generator = Generator(seed)](int64_t /*epoch*/) mutable {
    shuffle(order, shuffle_generator);
    std::vector<B> batches;
    for (size_t first = 0; first < order.size(); first += per_batch) batches.push_back(make(order, first, per_batch));
    return batches;
  };
  return BatchStream<B>(draw_epoch);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
