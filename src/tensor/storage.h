// storage.h — reusing tensors' memory, so that a warm training step asks the system for none.
//
// A training step makes the same tensors every time: the same activations, the same gradients, the same
// [B, T, V] logits. Freshly allocating them each step is slow in a way that does not show in the code: large
// blocks come straight from the kernel (mmap), and every first touch of every 4 KiB page of them is a page
// fault that zeroes the page — a quarter of a step's time, measured on the base model. So the numbers of a
// tensor that dies go back to a pool instead, and the next tensor of (about) that size takes them:
//
//   acquire(n, fill)   a vector of n numbers, all `fill`: a pooled buffer of n's size class if there is one,
//                      a fresh allocation otherwise
//   acquire_uninitialized(n)
//                      the same without the fill: the numbers are whatever the buffer held before (zeros when
//                      it is fresh), for an op's output that the op writes in full — filling it first would be
//                      a wasted pass over the memory (5 % of a small model's step). Only for such outputs:
//                      anything that accumulates (+=) into its buffer needs acquire(n, 0).
//   acquire_copy(numbers)
//                      a pooled buffer holding a copy of `numbers` (reshape and detach copy a tensor's numbers;
//                      a plain vector copy would be a fresh allocation, page faults included, every time)
//   release(numbers)   hands the buffer back (called by ~TensorNode for its value and grad)
//   recycle()          frees every pooled buffer into malloc's heap, when a phase of work with other shapes
//                      follows (decoding after training): otherwise the pool would keep the training step's
//                      buffers while decoding asks for new sizes on top of them, and the process's peak memory
//                      would grow after training has ended. In the heap the memory serves any size, and it
//                      stays the process's: decoding's buffers are carved out of it without asking the system
//   trim()             recycle(), and the heap's free memory given back to the system (malloc_trim)
//
// For recycle() to keep the memory, the pool sets two of glibc malloc's knobs (mallopt) when it is first used:
// buffers of up to 32 MiB come from malloc's heap rather than each from its own mmap (which free() would unmap),
// and free() never shrinks the heap by itself (only trim() does). Memory that went back to the system costs a
// page fault for every 4 KiB page when it is touched again — on this project's benchmark VM 12 µs each (85 MB of
// fresh pages took 265 ms to touch, 5 ms to fill once touched), a third of the time of decoding 100 sentences
// in one batch after training, before this.
//
// Size classes: a buffer of n numbers is given capacity c(n), n rounded up to the next of 8 steps per power of
// two (…, 1024, 1152, 1280, …, 1920, 2048, 2304, …), so a slightly different shape next batch still finds a
// buffer, at most 12.5 % is wasted, and a shape that varies from batch to batch creates only a few classes.
// Small buffers (under 1024 numbers) are not pooled: malloc serves them from its own free lists cheaply.
// The pool keeps at most as many bytes as were ever live in tensors at once (the peak of a step), so memory
// stays bounded by twice that peak however the shapes vary.
//
// The slow, obvious version is what std::vector does by itself: `value.assign(n, fill)` on a new vector.
// tests/tensor/test_storage.cpp counts the fresh allocations of training steps 3 to 5 and finds none.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<real> acquire_storage(int64_t n, real fill);
std::vector<real> acquire_storage_uninitialized(int64_t n);  // every number must then be written before it is read
std::vector<real> acquire_storage_copy(const std::vector<real>& numbers);  // a pooled copy (reshape, detach)
void release_storage(std::vector<real>& numbers);  // leaves `numbers` empty
void recycle_storage();  // frees every pooled buffer into malloc's heap and forgets the peak (see above)
void trim_storage();    // the same, and gives the heap's free memory back to the system

struct StorageCounts {
  int64_t fresh = 0;         // acquire_storage calls that allocated (pooled sizes only)
  int64_t reused = 0;        // acquire_storage calls served from the pool
  int64_t pooled_bytes = 0;  // bytes waiting in the pool now
  int64_t live_bytes = 0;    // bytes of pooled-size buffers handed out and not yet returned (tensors alive now)
};
StorageCounts storage_counts();

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
