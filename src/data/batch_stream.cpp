// batch_stream.cpp — a Batcher's epochs as a BatchStream (batch_stream.h), the translation model's batches.
#include "data/batch_stream.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

BatchStream<Batch> stream_of(const Batcher& batcher, int64_t epoch, int64_t batch_in_epoch) {
  return BatchStream<Batch>([&batcher](int64_t e) { return batcher.epoch(e); }, epoch, batch_in_epoch);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
