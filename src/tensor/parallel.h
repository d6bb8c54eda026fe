// parallel.h — running an elementwise loop over many numbers on all threads, with the same result for any count.
//
//   for_each_chunk(n, f)   calls f(begin, end) for the consecutive chunks [0, c), [c, 2c), … of [0, n),
//                          c = elementwise_chunk numbers, the chunks shared among the OpenMP threads
//   for_each_index(n, f)   calls f(i) for every i < n, chunk by chunk the same way
//   add_column_sums(rows, d, term, out)   out[j] += Σ_r term(r·d + j), in fixed chunks summed in order
//   use_threads(n)         how many threads these loops (and the products) share, for the whole process: each
//                          command sets it once, before its work (train.threads; n = 0: every core)
//
// The chunk boundaries depend on n alone, never on the number of threads, and an elementwise op writes each
// output number from its own inputs only — so a loop run through for_each_chunk gives the same bits on one
// thread or on eight. (A loop that sums into one place — a bias gradient, say — must not be split this way: its
// partial sums would depend on the chunks each thread took; add_column_sums below is the ordered way.)
// A loop of a single chunk runs on the calling thread: waking the other threads costs a few microseconds, more
// than a loop over 16 K numbers takes.
// The slow, obvious version is the single loop `for (i = 0; i < n; ++i) …`, which uses one core.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "tensor/real.h"
#include "tensor/storage.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

inline constexpr int64_t elementwise_chunk = 16384;                     // numbers: 64 KiB of floats

// Is a loop that touches `numbers` numbers worth sharing among the threads? Waking the other threads and waiting
// for them at the end costs a few microseconds — about what one core takes for 16 K numbers. Below that the loop
// runs on the calling thread: decoding one sentence is a long series of such small ops, and with the threads
// woken for each it ran slower on two cores than on one. Every parallel loop of the ops and kernels asks this
// (or, for products, worth_threads_for_products below) with its own work size; the chunking above already makes
// the same choice.
inline bool worth_threads(int64_t numbers) { return numbers >= elementwise_chunk; }

// The same question for a product-like loop, whose work is counted in multiply-adds: a core does one in a small
// fraction of the time it takes per number of an elementwise loop, so the bar is higher — 4 M multiply-adds,
// about 30 µs on one core. matmul's own split (tensor/product/product.cpp) and the attention kernels ask this. With
// 16 K as the bar, the encoder of one sentence woke the threads for its attention (4 heads × 32 × 32 × 32
// multiply-adds, a few µs of work).
inline constexpr int64_t product_split_work = int64_t(1) << 22;
inline bool worth_threads_for_products(int64_t multiply_adds) { return multiply_adds >= product_split_work; }

// Entering OpenMP costs something even when a region's `if` clause keeps it on one thread: libgomp sets up a
// team of one for it, about 1.2 µs on this project's 2-core VM (a loop of `#pragma omp parallel if (false)`,
// 1.2 µs a region on 1 thread, 1.3 on 2). Decoding one sentence of the small benchmark model entered ~1,800 such
// regions, about 2 of the 5.9 ms it took. So these helpers call straight through when the work is too small to
// share, and never enter OpenMP then:
//   parallel_for(count, worth, f)   f(i) for every i < count: shared among the threads (static schedule) when
//                                   `worth`, else a plain loop on the calling thread
//   parallel_region(worth, body)    body() on every thread when `worth`, its loops split by `#pragma omp for`;
//                                   else body() once on the calling thread, where such a loop (outside any
//                                   parallel region) runs all of its iterations
template <typename F>
void parallel_for(int64_t count, bool worth, const F& f) {
  if (!worth) {
    for (int64_t i = 0; i < count; ++i) f(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; ++i) f(i);
}

template <typename F>
void parallel_region(bool worth, const F& body) {
  if (!worth) {
    body();
    return;
  }
#pragma omp parallel
  body();
}

// Give these a lambda that captures its pointers by value ([=]): each chunk runs a private copy of it, whose
// pointers the compiler can keep in registers and vectorise the loop over (through a captured reference it would
// have to reload them after every store, and the loop stays scalar).
template <typename F>
void for_each_chunk(int64_t n, const F& f) {
  const int64_t chunks = (n + elementwise_chunk - 1) / elementwise_chunk;
  if (chunks <= 1) {                                                    // one chunk: no threads, no OpenMP
    F body = f;
    body(0, n);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < chunks; ++c) {
    F body = f;                                                         // this chunk's copy
    const int64_t begin = c * elementwise_chunk;
    body(begin, begin + elementwise_chunk < n ? begin + elementwise_chunk : n);
  }
}

// f(i) for every i < n, the same way: for the one-line elementwise loops.
template <typename F>
void for_each_index(int64_t n, const F& f) {
  for_each_chunk(n, [f](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) f(i);
  });
}

// out[j] += Σ_r term(r·d + j) over the rows r of a [rows, d] matrix — a bias gradient, the sum of ∂y over every
// position — in parallel, yet the same bits for any thread count: fixed chunks of `row_chunk` rows each sum, in
// row order, into a partial row of their own, and the partials are added to out in chunk order (layer_norm's ∂γ and
// ∂β do the same). The slow, obvious version: for (r) for (j) out[j] += term(r·d + j), on one thread.
inline constexpr int64_t row_chunk = 64;

template <typename Term>
void add_column_sums(int64_t rows, int64_t d, const Term& term, real* out) {
  const int64_t chunks = (rows + row_chunk - 1) / row_chunk;
  std::vector<real> partial = acquire_storage(chunks * d, real(0));      // [chunks, d], pooled (storage.h)
  real* p = partial.data();
  parallel_for(chunks, chunks > 1 && rows * d > elementwise_chunk, [=](int64_t c) {
    const Term body = term;                                             // this chunk's copy (see above)
    real* sums = p + c * d;                                             // [d]
    for (int64_t r = c * row_chunk; r < std::min(rows, (c + 1) * row_chunk); ++r)
      for (int64_t j = 0; j < d; ++j) sums[j] += body(r * d + j);
  });
  for (int64_t c = 0; c < chunks; ++c)                                  // the chunks' sums, in order
    for (int64_t j = 0; j < d; ++j) out[j] += p[c * d + j];
  release_storage(partial);                                             // back to the pool for the next step
}

// The threads OpenMP's loops and the products share from now on, process-wide: `requested` (train.threads, serve's
// --threads), or every core when 0. Returns the count used. (Under mpirun, data_parallel.h's threads_per_rank
// first shares the cores among the ranks on one machine.)
int use_threads(int64_t requested);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
