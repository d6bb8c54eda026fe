// storage.cpp — the size-class pool of tensor buffers (see storage.h).
#include "tensor/storage.h"

#include <malloc.h>  // malloc_trim (glibc)

#include <algorithm>
#include <bit>
#include <limits>
#include <map>
#include <mutex>

#include "tensor/parallel.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr int64_t smallest_pooled = 1024;  // numbers; smaller buffers are left to malloc

// The capacity of n's class: n rounded up to 2^k · (1 + i/8), i in 0 … 7.
int64_t class_capacity(int64_t n) {
  const int64_t power = int64_t(1) << (std::bit_width(static_cast<uint64_t>(n)) - 1);  // 2^k ≤ n
  const int64_t step = power / 8;
  return (n + step - 1) / step * step;
}

// The largest class capacity a buffer of `capacity` numbers can serve: capacity rounded down to a class.
int64_t class_below(int64_t capacity) {
  const int64_t power = int64_t(1) << (std::bit_width(static_cast<uint64_t>(capacity)) - 1);
  const int64_t step = power / 8;
  return capacity / step * step;
}

struct Pool {
  std::mutex mutex;
  std::map<int64_t, std::vector<std::vector<real>>> free;  // class capacity → buffers of at least that capacity
  int64_t live_bytes = 0, peak_live_bytes = 0;             // handed out and not yet returned (approximately)
  StorageCounts counts;
};

Pool& pool() {
  static Pool* instance = [] {
    // Buffers of up to 32 MiB (the largest threshold glibc takes) from malloc's heap, not each from an mmap of
    // its own, and a heap that free() does not shrink: recycled memory stays the process's (storage.h).
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
    return new Pool;  // never destroyed: tensors in static objects may die after it otherwise
  }();
  return *instance;
}


// A buffer of capacity class_capacity(n) (n ≥ smallest_pooled) from the pool, or a fresh reservation; its size
// is what it was when it was released (0 when fresh).
std::vector<real> take_buffer(int64_t n) {
  std::vector<real> numbers;
  const int64_t capacity = class_capacity(n);
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    const int64_t bytes = capacity * static_cast<int64_t>(sizeof(real));
    p.live_bytes += bytes;
    p.peak_live_bytes = std::max(p.peak_live_bytes, p.live_bytes);
    auto it = p.free.find(capacity);
    if (it != p.free.end() && !it->second.empty()) {
      numbers = std::move(it->second.back());
      it->second.pop_back();
      p.counts.pooled_bytes -= static_cast<int64_t>(numbers.capacity() * sizeof(real));
      ++p.counts.reused;
    } else {
      ++p.counts.fresh;
    }
  }
  if (numbers.capacity() == 0) numbers.reserve(static_cast<size_t>(capacity));
  return numbers;
}

}  // namespace

std::vector<real> acquire_storage(int64_t n, real fill) {
  std::vector<real> numbers;
  if (n < smallest_pooled) {
    numbers.assign(static_cast<size_t>(n), fill);
    return numbers;
  }
  numbers = take_buffer(n);
  // Within capacity: no reallocation. resize writes (zeros, on one thread) only past the buffer's old size —
  // nothing for a reused buffer of the same shape, the usual case — and the fill is shared among the threads.
  numbers.resize(static_cast<size_t>(n));
  real* p = numbers.data();
  for_each_chunk(n, [p, fill](int64_t begin, int64_t end) { std::fill(p + begin, p + end, fill); });
  return numbers;
}

std::vector<real> acquire_storage_uninitialized(int64_t n) {
  if (n < smallest_pooled) return std::vector<real>(static_cast<size_t>(n));  // malloc's, zeroed: cheap here
  std::vector<real> numbers = take_buffer(n);
  // resize writes only the numbers past the buffer's old size (zeros): a buffer of the same shape last time,
  // the usual case in training, is taken as it is.
  numbers.resize(static_cast<size_t>(n));
  return numbers;
}

std::vector<real> acquire_storage_copy(const std::vector<real>& numbers) {
  std::vector<real> copy = acquire_storage_uninitialized(static_cast<int64_t>(numbers.size()));
  std::copy(numbers.begin(), numbers.end(), copy.begin());
  return copy;
}

void release_storage(std::vector<real>& numbers) {
  const int64_t capacity = static_cast<int64_t>(numbers.capacity());
  if (capacity < smallest_pooled) {
    std::vector<real>().swap(numbers);
    return;
  }
  const int64_t key = class_below(capacity);
  const int64_t bytes = capacity * static_cast<int64_t>(sizeof(real));
  Pool& p = pool();
  std::vector<real> dropped;                                            // freed outside the lock
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    p.live_bytes = std::max<int64_t>(0, p.live_bytes - key * static_cast<int64_t>(sizeof(real)));
    if (p.counts.pooled_bytes + bytes <= p.peak_live_bytes) {           // keep at most one step's peak
      p.free[key].push_back(std::move(numbers));
      p.counts.pooled_bytes += bytes;
    } else {
      dropped = std::move(numbers);
    }
  }
  numbers = std::vector<real>();
}

void recycle_storage() {
  std::map<int64_t, std::vector<std::vector<real>>> dropped;          // freed outside the lock
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    dropped.swap(p.free);
    p.counts.pooled_bytes = 0;
    p.peak_live_bytes = p.live_bytes;   // the pool may again keep up to the next phase's own peak
  }
  dropped.clear();                      // into malloc's heap, whose free memory serves any size
}

void trim_storage() {
  recycle_storage();
  malloc_trim(0);                       // and the heap's free pages back to the system
}

StorageCounts storage_counts() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  StorageCounts counts = p.counts;
  counts.live_bytes = p.live_bytes;
  return counts;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
