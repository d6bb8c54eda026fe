// test_batch_stream.cpp — facts about the training batches as a stream (src/data/batch_stream.h): epochs drawn in
// turn, and a stream started at a checkpoint's (epoch, batch_in_epoch) going on exactly as the uninterrupted one.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "data/batch_stream.h"
#include "data/batching.h"
#include "tensor/random.h"

using namespace attnlab;

namespace {

// `count` pairs of 1–20 tokens a side, drawn from `seed`.
std::vector<EncodedPair> some_pairs(size_t count, uint64_t seed) {
  Generator generator(seed);
  std::vector<EncodedPair> pairs(count);
  for (size_t i = 0; i < count; ++i) {
    pairs[i].src.assign(static_cast<size_t>(generator.integer(1, 21)), 5);
    pairs[i].tgt.assign(static_cast<size_t>(generator.integer(1, 21)), 6);
    pairs[i].index = i;
  }
  return pairs;
}

}  // namespace

TEST_CASE("a batch stream hands out each epoch's batches in order, then draws the next epoch, in turn") {
  std::vector<int64_t> drawn;
  BatchStream<int64_t> stream([&drawn](int64_t epoch) {   // epoch e: the batches 10e, 10e + 1, 10e + 2
    drawn.push_back(epoch);
    return std::vector<int64_t>{10 * epoch, 10 * epoch + 1, 10 * epoch + 2};
  });
  std::vector<int64_t> taken, epochs;
  for (int i = 0; i < 7; ++i) {
    taken.push_back(stream.next());
    epochs.push_back(stream.epoch());
  }
  CHECK(taken == std::vector<int64_t>{0, 1, 2, 10, 11, 12, 20});
  CHECK(epochs == std::vector<int64_t>{0, 0, 0, 1, 1, 1, 2});   // the epoch of the last batch taken
  CHECK(drawn == std::vector<int64_t>{0, 1, 2});
  CHECK(stream.batch_in_epoch() == 1);
}

TEST_CASE("a stream started at a checkpoint's (epoch, batch_in_epoch) goes on with the batches of a stream never "
          "stopped, also when the epoch was used up") {
  const Batcher batcher(some_pairs(200, 3), 120, 7);
  const auto per_epoch = static_cast<int64_t>(batcher.batches_per_epoch());
  REQUIRE(per_epoch > 2);
  BatchStream<Batch> never_stopped = stream_of(batcher);
  for (int64_t stop_after = 0; stop_after < 2 * per_epoch + 1; ++stop_after) {
    // Where a checkpoint after `stop_after` batches says the run is: the next batch comes from there.
    const int64_t epoch = never_stopped.epoch(), batch_in_epoch = never_stopped.batch_in_epoch();
    BatchStream<Batch> resumed = stream_of(batcher, epoch, batch_in_epoch);
    BatchStream<Batch> ahead = never_stopped;                // a copy, so never_stopped moves one batch a turn
    for (int k = 0; k < 3; ++k) CHECK(resumed.next().indices == ahead.next().indices);
    never_stopped.next();
  }
}

TEST_CASE("move_to puts a stream where another rank's stream is (the place start_together hands on)") {
  const Batcher batcher(some_pairs(100, 5), 100, 9);
  BatchStream<Batch> root = stream_of(batcher, 2, 1), other = stream_of(batcher);
  other.move_to(root.epoch(), root.batch_in_epoch());
  CHECK(other.epoch() == 2);
  for (int k = 0; k < 4; ++k) CHECK(other.next().indices == root.next().indices);
}
