// failing_allocator.h — a global operator new that can be told to fail the n-th allocation (SQLite's
// "out-of-memory testing", https://sqlite.org/testing.html#oom).
//
// failing_allocator.cpp replaces every form of the global operator new and delete: plain and array, with and
// without std::nothrow, with and without an alignment (std::align_val_t, which aligned types such as Eigen's
// fixed-size ones are given). Each goes to malloc / posix_memalign and free, so AddressSanitizer and
// LeakSanitizer still see every block. It is off until start_counting():
//
//   start_counting(n)   from now on count the allocations; the n-th (1-based) fails — operator new throws
//                       std::bad_alloc, the nothrow forms return nullptr — and, if `persistent`, every one after it
//                       fails too (SQLite's two modes: a transient and a persistent failure); n = 0: none fails
//   stop_counting()     stops; returns how many allocations were asked for since start_counting
//   failure_made()      whether an allocation was made to fail since start_counting
//   CountingPaused      while one lives, allocations are neither counted nor failed (a library's own, which are
//                       not attnlab's to fail: sentencepiece_unfailed.cpp); counting goes on as before after it
//
// What it cannot reach: memory taken with malloc itself rather than operator new — the C library's (stdio buffers,
// strerror, locale tables), Eigen's aligned_malloc (the product kernels; no reader uses it) and any C library's own.
// Counting is global, not per thread: the test runs the readers on one thread.
#pragma once

#include <cstdint>

namespace attnlab::testing {

void start_counting(int64_t fail_at, bool persistent);
int64_t stop_counting();
bool failure_made();

class CountingPaused {
 public:
  CountingPaused();
  ~CountingPaused();
  CountingPaused(const CountingPaused&) = delete;
  CountingPaused& operator=(const CountingPaused&) = delete;

 private:
  bool was_counting_;
};

}  // namespace attnlab::testing
