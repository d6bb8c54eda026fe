// broadcast.h — walking two tensors of broadcast-compatible shapes together (NumPy rules).
//
// Shapes are aligned at their last axis and padded on the left with 1s to rank 4. Along each axis the two sizes
// must be equal, or one of them 1; the output takes the larger. An input of size 1 along an axis is read with
// stride 0 there, so the same number is reused for every output index along that axis:
//     a [2, 3, 4] + b [4]  →  b is read as [1, 1, 1, 4] with strides [0, 0, 0, 1].
// for_each_broadcast() calls f(out_offset, a_offset, b_offset) for every output element, in row-major order.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "tensor/parallel.h"
#include "tensor/tensor.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct Broadcast {
  Shape out;                          // the broadcast shape
  std::array<int64_t, 4> sizes{};     // out's sizes, left-padded with 1s to rank 4
  std::array<int64_t, 4> stride_a{};  // a's strides in that 4-D index space (0 where a is broadcast)
  std::array<int64_t, 4> stride_b{};
  bool same_shape = false;            // a, b and out all equal: the plain loop suffices
};

// Throws attnlab::Error "op: shapes [..] and [..] cannot be broadcast together (axis k: 3 vs 4)".
Broadcast make_broadcast(const Shape& a, const Shape& b, const char* op);

template <typename F>
void for_each_broadcast(const Broadcast& bc, F&& f) {
  if (bc.same_shape) {
    int64_t n = bc.out.numel();
    for (int64_t i = 0; i < n; ++i) f(i, i, i);
    return;
  }
  const bool contiguous = bc.stride_a[3] == 1 && bc.stride_b[3] == 1;  // a plain inner loop, which vectorises
  int64_t out = 0;
  for (int64_t i0 = 0; i0 < bc.sizes[0]; ++i0)
    for (int64_t i1 = 0; i1 < bc.sizes[1]; ++i1)
      for (int64_t i2 = 0; i2 < bc.sizes[2]; ++i2, out += bc.sizes[3]) {
        int64_t a = i0 * bc.stride_a[0] + i1 * bc.stride_a[1] + i2 * bc.stride_a[2];
        int64_t b = i0 * bc.stride_b[0] + i1 * bc.stride_b[1] + i2 * bc.stride_b[2];
        if (contiguous) {
          for (int64_t i3 = 0; i3 < bc.sizes[3]; ++i3) f(out + i3, a + i3, b + i3);
        } else {
          for (int64_t i3 = 0; i3 < bc.sizes[3]; ++i3) f(out + i3, a + i3 * bc.stride_a[3], b + i3 * bc.stride_b[3]);
        }
      }
}

// The same calls as for_each_broadcast, with the output's rows (its last axis) shared among the OpenMP threads in
// chunks fixed by the shape alone (tensor/parallel.h). Only for an f whose calls write to different numbers for
// different o — the output, or the gradient of an input that has the output's shape — never for one that sums into
// a broadcast input, whose sums would then depend on the threads.
// As with for_each_index (tensor/parallel.h), give it a lambda that captures its pointers by value ([=]).
template <typename F>
void for_each_broadcast_parallel(const Broadcast& bc, const F& f) {
  if (bc.same_shape) {
    for_each_index(bc.out.numel(), [f](int64_t i) { f(i, i, i); });
    return;
  }
  const int64_t row = bc.sizes[3];                                      // numbers in one row of the last axis
  const int64_t rows = bc.sizes[0] * bc.sizes[1] * bc.sizes[2];
  const int64_t rows_per_chunk = std::max<int64_t>(1, elementwise_chunk / std::max<int64_t>(row, 1));
  const int64_t chunks = (rows + rows_per_chunk - 1) / rows_per_chunk;
  const bool contiguous = bc.stride_a[3] == 1 && bc.stride_b[3] == 1;  // neither input broadcast along the last axis
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (int64_t c = 0; c < chunks; ++c) {
    F body = f;                                                         // this thread's copy (see for_each_index)
    for (int64_t r = c * rows_per_chunk; r < std::min(rows, (c + 1) * rows_per_chunk); ++r) {
      const int64_t i2 = r % bc.sizes[2], i1 = r / bc.sizes[2] % bc.sizes[1], i0 = r / (bc.sizes[2] * bc.sizes[1]);
      const int64_t a = i0 * bc.stride_a[0] + i1 * bc.stride_a[1] + i2 * bc.stride_a[2];
      const int64_t b = i0 * bc.stride_b[0] + i1 * bc.stride_b[1] + i2 * bc.stride_b[2];
      if (contiguous) {                                                 // the usual case, e.g. x [B, T, d] + b [d]:
        for (int64_t i3 = 0; i3 < row; ++i3) body(r * row + i3, a + i3, b + i3);  // a loop that vectorises
      } else {
        for (int64_t i3 = 0; i3 < row; ++i3) body(r * row + i3, a + i3 * bc.stride_a[3], b + i3 * bc.stride_b[3]);
      }
    }
  }
}

// The first step of the masked softmax kernels: out = x + mask, the mask broadcast to x's shape (it may have
// size-1 or missing axes, but may not make x bigger). Without a mask, out = x. Throws attnlab::Error naming `op`.
void add_additive_mask(const Tensor& x, const Tensor& additive_mask, real* out, const char* op);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
