// parallel.h — running an elementwise loop over many numbers on all threads, with the same result for any count.
//
//   for_each_chunk(n, f)   calls f(begin, end) for the consecutive chunks [0, c), [c, 2c), … of [0, n),
//                          c = elementwise_chunk numbers, the chunks shared among the OpenMP threads
//   for_each_index(n, f)   calls f(i) for every i < n, chunk by chunk the same way
//   add_to_grad(x, term)   ∂x_i += term(i) for every i, the same way (a first gradient is written, not added)
//   pass_output_gradient(x, out)   ∂x += ∂out for an identity derivative, handing the buffer over when it can
//   add_column_sums(rows, d, term, out)   out[j] += Σ_r term(r·d + j), in fixed chunks summed in order
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

#include "autograd/graph.h"
#include "tensor/tensor.h"

namespace attnlab::inline ATTNLAB_PRECISION {

inline constexpr int64_t elementwise_chunk = 16384;                     // numbers: 64 KiB of floats

// Give these a lambda that captures its pointers by value ([=]): each chunk runs a private copy of it, whose
// pointers the compiler can keep in registers and vectorise the loop over (through a captured reference it would
// have to reload them after every store, and the loop stays scalar).
template <typename F>
void for_each_chunk(int64_t n, const F& f) {
  const int64_t chunks = (n + elementwise_chunk - 1) / elementwise_chunk;
#pragma omp parallel for schedule(static) if (chunks > 1)
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
  std::vector<real> partial(static_cast<size_t>(chunks * d), real(0));  // [chunks, d]
  real* p = partial.data();
#pragma omp parallel for schedule(static) if (chunks > 1 && rows * d > elementwise_chunk)
  for (int64_t c = 0; c < chunks; ++c) {
    const Term body = term;                                             // this chunk's copy (see above)
    real* sums = p + c * d;                                             // [d]
    for (int64_t r = c * row_chunk; r < std::min(rows, (c + 1) * row_chunk); ++r)
      for (int64_t j = 0; j < d; ++j) sums[j] += body(r * d + j);
  }
  for (int64_t c = 0; c < chunks; ++c)                                  // the chunks' sums, in order
    for (int64_t j = 0; j < d; ++j) out[j] += p[c * d + j];
}

// For a backward function with its own loops, the choice add_to_grad makes: x's gradient buffer and whether it
// is the first to arrive (first = true: a buffer never zero-filled, to be written with =, every number of it);
// otherwise grad() and first = false (add with +=). nullptr (first = false) when x wants no gradient.
inline real* gradient_buffer(const Tensor& x, bool& first) {
  first = false;
  if (!wants_grad(x)) return nullptr;
  first = !x.has_grad();
  return first ? x.grad_for_overwrite() : x.grad();
}

// ∂x_i += term(i) for every i < x.numel(), chunk by chunk the same way. When this is the first gradient x
// receives, it is written (=) into a buffer that was never zero-filled instead: 0 + t = t, minus a pass that
// writes zeros and a pass that reads them back. term captures by value, as above.
// The slow, obvious version: `real* gx = x.grad(); for (i) gx[i] += term(i);`.
template <typename Term>
void add_to_grad(const Tensor& x, const Term& term) {
  if (x.has_grad()) {
    real* gx = x.grad();
    for_each_index(x.numel(), [=](int64_t i) { gx[i] += term(i); });
  } else {
    real* gx = x.grad_for_overwrite();
    for_each_index(x.numel(), [=](int64_t i) { gx[i] = term(i); });
  }
}

// ∂x += g, where g is the whole gradient of the op's output `out` and the op's derivative with respect to x is the
// identity (add's two inputs, sub's first, add_scalar's). When x has no gradient yet, the buffer g is handed over
// to x instead of copied: the backward sweep (graph.cpp) releases `out`'s gradient as soon as this backward returns
// anyway — all but the loss's, which is a single number and so never handed over here. Must be the backward
// function's last use of out.grad. The slow, obvious version: add_to_grad(x, [=](i) { return g[i]; }).
inline void pass_output_gradient(const Tensor& x, TensorNode& out) {
  if (!x.has_grad() && out.grad.size() > 1 && static_cast<int64_t>(out.grad.size()) == x.numel()) {
    x.node_ptr()->grad = std::move(out.grad);                          // ∂x = g, the very numbers
    return;
  }
  const real* g = out.grad.data();
  add_to_grad(x, [=](int64_t i) { return g[i]; });
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
