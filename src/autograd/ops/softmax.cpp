// softmax.cpp — softmax (fused with an additive mask) and log_softmax, over the last axis.
//
// Softmax turns a row of scores into a probability distribution; attention uses it to decide how much each
// query looks at each key. A mask hides keys by adding −inf to their scores (padding, or the future):
//
//   forward      z = x + m                                 m broadcasts to x (NumPy rules), entries 0 or −inf
//                y_i = e^(z_i − max_j z_j) / Σ_k e^(z_k − max_j z_j)
//   backward     ∂x_i += y_i · (g_i − Σ_j g_j · y_j)        g = ∂loss/∂y; the mask is a constant (no gradient)
//
// Why subtract the row max: e^1000 overflows, but softmax(z) = softmax(z − c) for any c (the e^−c cancels),
// and with c = max every exponent is ≤ 0, so every e^(…) is in [0, 1] and the largest is exactly 1.
// A hidden entry has z = −inf, so e^(−inf) = 0 exactly: it gets probability 0 and, since y_i = 0 in the
// backward formula, no gradient. A row where every entry is hidden (a padding query, say) has max = −inf and
// z − max = NaN; such a row is set to all zeros instead, and so passes zero gradient too.
//
// The backward formula: ∂y_i/∂z_j = y_i (δ_ij − y_j), so ∂x_j = Σ_i g_i y_i (δ_ij − y_j) = y_j (g_j − Σ_i g_i y_i).
// It needs only y, which the backward function finds in its output node: nothing else is saved.
//
// The slow, obvious version would be softmax(add(x, mask)): an extra [B, h, T, T] tensor and a graph node.
// Fusing the mask in costs nothing: z is written straight into y's storage and turned into y row by row.
//
//   log_softmax  y_i = x_i − (max + log Σ_j e^(x_j − max))   (log of softmax, without forming softmax's tiny
//                                                            numbers, so y stays finite for logits like ±1000)
//   backward     ∂x_i += g_i − softmax_i · Σ_j g_j,  softmax_i = e^(y_i)
//                (∂y_i/∂x_j = δ_ij − softmax_j, summed against g.)
// log_softmax has no mask; a row that is entirely −inf gives −inf (the log of softmax's all-zero row), not NaN,
// and its backward is then the formula's ∂x_i = g_i (softmax_i = 0), as for any −inf entry of a live row.
#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/ops.h"
#include "autograd/ops/broadcast.h"
#include "tensor/parallel.h"
#include "tensor/row_math.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr real minus_infinity = -std::numeric_limits<real>::infinity();

// Turns one row of scores z (in place) into softmax(z); a row that is −inf everywhere becomes all zeros.
// The max and e^(z − max) with its sum come from row_math.h's vectorised kernels; the slow, obvious version is
//   max = *std::max_element(z, z + d);  for (j) { z[j] = std::exp(z[j] - max); total += z[j]; }
void softmax_row(real* z, int64_t d) {
  const real max = row_max(z, d);
  if (max == minus_infinity) {                                          // every key hidden: no distribution
    std::fill(z, z + d, real(0));
    return;
  }
  const real total = exp_shifted(z, max, d, z);                         // z_j ← e^(z_j − max) in [0, 1]; e^(−inf) = 0
  for (int64_t j = 0; j < d; ++j) z[j] /= total;                        // total ≥ 1: the max entry gave e⁰
}

}  // namespace

Tensor softmax(const Tensor& x, const Tensor& additive_mask) {
  const int64_t d = x.shape()[-1];                                      // the axis softmax runs along
  const int64_t rows = x.shape().rows();                                // every other axis, flattened
  Tensor y = Tensor::empty(x.shape());                                  // [..., d], same shape as x, all written
  real* py = y.data();

  add_additive_mask(x, additive_mask, py, "softmax");                  // z = x + m, in y's storage

#pragma omp parallel for schedule(static) if (worth_threads(rows * d))
  for (int64_t r = 0; r < rows; ++r) softmax_row(py + r * d, d);       // each row of [rows, d] → softmax

  // Only x is recorded as an input: the mask is a constant and never receives a gradient.
  record(y, "softmax", {x}, [x, rows, d](TensorNode& out) {
    real* gx = x.grad();                                                // [rows, d]
#pragma omp parallel for schedule(static) if (worth_threads(rows * d))
    for (int64_t r = 0; r < rows; ++r) {
      const real* yr = out.value.data() + r * d;                        // y of this row, [d]
      const real* gr = out.grad.data() + r * d;                         // ∂loss/∂y of this row, [d]
      real* gxr = gx + r * d;                                           // [d]
      const real g_dot_y = row_dot(gr, yr, d);                          // Σ_j g_j · y_j
      for (int64_t i = 0; i < d; ++i) {
        gxr[i] += yr[i] * (gr[i] - g_dot_y);                            // ∂x_i += y_i (g_i − Σ_j g_j y_j)
      }
    }
  });
  return y;
}

Tensor log_softmax(const Tensor& x) {
  const int64_t d = x.shape()[-1];
  const int64_t rows = x.shape().rows();
  Tensor y = Tensor::empty(x.shape());                                  // [..., d], same shape as x, all written
  const real* px = x.data();
  real* py = y.data();
  for (int64_t r = 0; r < rows; ++r) {
    const real* xr = px + r * d;                                        // [d]
    real* yr = py + r * d;                                              // [d]
    real max = *std::max_element(xr, xr + d);
    if (max == minus_infinity) {                                        // every entry −inf: log 0 everywhere
      std::fill(yr, yr + d, minus_infinity);
      continue;
    }
    real total = 0;                                                     // Σ_j e^(x_j − max), in [1, d]
    for (int64_t j = 0; j < d; ++j) total += std::exp(xr[j] - max);
    const real log_normalizer = max + std::log(total);                  // log Σ_j e^(x_j)
    for (int64_t j = 0; j < d; ++j) yr[j] = xr[j] - log_normalizer;     // y_i = x_i − log Σ_j e^(x_j)
  }

  record(y, "log_softmax", {x}, [x, rows, d](TensorNode& out) {
    real* gx = x.grad();                                                // [rows, d]
    for (int64_t r = 0; r < rows; ++r) {
      const real* yr = out.value.data() + r * d;                        // log softmax of this row, [d]
      const real* gr = out.grad.data() + r * d;                         // [d]
      real* gxr = gx + r * d;                                           // [d]
      real g_total = 0;                                                 // Σ_j g_j
      for (int64_t j = 0; j < d; ++j) g_total += gr[j];
      for (int64_t i = 0; i < d; ++i) gxr[i] += gr[i] - std::exp(yr[i]) * g_total;  // g_i − softmax_i · Σ_j g_j
    }
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
