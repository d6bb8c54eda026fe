// row_math.h — the vectorised inner loops of softmax, log-softmax, cross-entropy, layer norm, attention and
// greedy decoding: the max of a row and where it is, e^(x − shift) over a row with its sum, and the sums of a row
// and of the products of two rows.
//
//   row_max(x, n)                 = max_j x_j
//   row_argmax(x, n)              = the first j with x_j = max_j x_j    (greedy decoding's next token)
//   exp_shifted(x, shift, n, y)   : y_j = e^(x_j − shift) for j < n, returns Σ_j y_j
//   row_sum(x, n)                 = Σ_j x_j
//   row_dot(x, y, n)              = Σ_j x_j · y_j           (layer norm's statistics, softmax's backward)
//
// The slow, obvious versions are the loops
//     real m = x[0]; for (j) m = std::max(m, x[j]);
//     real total = 0; for (j) { y[j] = std::exp(x[j] - shift); total += y[j]; }
// which cost one scalar std::exp (~20 cycles) per number; for the loss over a vocabulary of 8000 that is 16 M
// calls a step. These kernels do 16 floats (8 doubles, with AVX-512) at once with Eigen's polynomial exp
// (Eigen::internal::pexp, Cephes' approximation: about 1 ulp in float) and keep one vector of partial sums.
//
// Determinism. The row is always cut into packets starting at x[0]: packet k holds x[kP … kP+P−1], whatever
// the address of x (unaligned loads), and the last, partial packet is padded through a small local buffer, so
// every number goes through the same vector polynomial and the partial sums are added in the same order —
// the result depends only on the numbers, never on where the buffer happens to sit in memory. (A plain Eigen
// expression over a Map would start with scalar std::exp until the address is aligned, which rounds
// differently.) The order of the sum differs from the obvious left-to-right loop, so results agree with it to
// rounding, not bit for bit; tests/tensor/test_row_math.cpp compares the two.
//
// row_argmax's obvious loop, `best = 0; for (j) if (x[j] > x[best]) best = j;`, waits at every step for the
// comparison before to know which x[best] to load next: about 6 ns a number, 48 µs for a row of 8000 logits —
// 14 % of batched greedy decoding's time with the base model. row_argmax keeps 16 such searches side by side,
// lane l over j = l, l + 16, l + 32, …, each with its own best value and index; the compiler turns the 16 into
// vector compares and selects (3 µs a row), and the lanes' winners are compared at the end: the largest value,
// and of equal values the smallest index. It returns what the obvious loop returns for every row, NaN included
// (a NaN is never larger, so it never wins — unless it is x[0], which then stays).
//
// e^(−inf) is exactly 0 here (the polynomial alone would give a tiny positive number), so a hidden attention
// key still gets weight exactly 0 and passes no gradient.
#pragma once

#include <cstdint>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// max_j x_j over x[0 … n−1], n ≥ 1.
real row_max(const real* x, int64_t n);

// The first j < n with x_j the largest (see above: the obvious loop's answer, NaN included), n ≥ 1.
int64_t row_argmax(const real* x, int64_t n);

// y_j = e^(x_j − shift) for j < n (y may be x itself); returns Σ_j y_j, in the fixed packet order above.
real exp_shifted(const real* x, real shift, int64_t n, real* y);

// Σ_j x_j in the same fixed packet order (so a row sums the same wherever it sits).
real row_sum(const real* x, int64_t n);

// Σ_j x_j · y_j in the same fixed packet order (each packet's products added with one multiply-add).
real row_dot(const real* x, const real* y, int64_t n);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
