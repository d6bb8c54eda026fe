// attention_ops.cpp — two ops that members of the attention family need and the general op set lacks:
// prefix_softmax (external attention in the decoder) and divide (linear attention's normaliser).
//
// ---- prefix_softmax: a softmax along an axis that, at position i, sees only positions j ≤ i ----
//
//   forward      z = x + m                                   m broadcasts to x, entries 0 (keep) or −inf (hide)
//                y_i = e^(z_i) / Σ_{j ≤ i} e^(z_j)             i, j along `axis`; every other index is separate
//   backward     ∂x_j += y_j · (g_j − D_j),   D_j = Σ_{i ≥ j} g_i · y_i · e^(lse_j − lse_i)
//                lse_i = log Σ_{j ≤ i} e^(z_j)  (the log of position i's normaliser; saved by forward)
//
// Why it exists. External attention normalises over the *tokens* (the softmax runs down a column of the
// [T, S] score matrix, not along a row). In the decoder, token i must not look at later tokens, so its
// normaliser may only add up e^(z_j) for j ≤ i — a prefix sum. Plain softmax over all tokens would let a
// later token change an earlier token's output: the future would leak into the past.
//
// Why a running max (the "online softmax" of Milakov & Gimelshein 2018). The usual trick subtracts the max
// before exponentiating so that nothing overflows. Taking the max over the whole column would make y_0 depend
// on z_{T−1} through the rounding of e^(z_0 − max): not the future's information, but its fingerprints, and a
// test of "changing later tokens leaves earlier outputs unchanged" would see them. So each position uses the
// max of its own prefix, kept as we go:
//     M_i = max(M_{i−1}, z_i)
//     l_i = l_{i−1} · e^(M_{i−1} − M_i) + e^(z_i − M_i)       (rescale the old sum to the new max, add the new term)
//     y_i = e^(z_i − M_i) / l_i,     lse_i = M_i + log l_i
// y_i is computed from z_0 … z_i alone, in the same order whatever follows: bit for bit independent of the
// future. One pass, O(n) per column. The slow, obvious version would recompute Σ_{j ≤ i} for every i, O(n²).
//
// The backward, derived. y_i = e^(z_i − lse_i) and ∂lse_i/∂z_j = e^(z_j − lse_i) for j ≤ i (0 for j > i), so
//     ∂y_i/∂z_j = y_i · (δ_ij − e^(z_j − lse_i))                    for j ≤ i
//     ∂z_j = Σ_{i ≥ j} g_i ∂y_i/∂z_j = g_j y_j − e^(z_j) Σ_{i ≥ j} g_i y_i e^(−lse_i)
//          = y_j · (g_j − D_j)                                       (e^(z_j) = y_j · e^(lse_j))
// the softmax backward y_j (g_j − Σ g·y) with the dot product replaced by a suffix sum weighted by
// e^(lse_j − lse_i). lse never decreases along the prefix, so these weights are ≤ 1 and the suffix sum runs
// backwards without overflow:  D_j = g_j y_j + e^(lse_j − lse_{j+1}) · D_{j+1}.
// Hidden entries have y = 0: they receive no gradient. A prefix with nothing visible yet (lse = −inf) gives
// y = 0 and D = 0 — no NaN. The mask is a constant: it receives no gradient.
// At the last position the prefix is the whole column, so y_{T−1} is the ordinary softmax's value (up to
// rounding).
//
// ---- divide: a / b, elementwise with broadcasting (add()'s rules) ----
//
//   forward      y = a / b
//   backward     ∂a += g / b,        ∂b += −g · a / b²   (= −g · y / b)
// Linear attention divides its numerator [B, h, T, d_k] by a per-query normaliser [B, h, T, 1]. The slow,
// obvious version is mul(a, exp(−log(b))): three graph nodes and two wasted transcendental functions.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "autograd/ops.h"
#include "autograd/ops/broadcast.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr real minus_infinity = -std::numeric_limits<real>::infinity();

// x seen as [outer, n, inner] around one axis (as in reductions.cpp): element (o, i, k) at (o·n + i)·inner + k,
// so the n numbers of one column along the axis are spaced `inner` apart.
struct AxisView {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t offset(int64_t o, int64_t i, int64_t k) const { return (o * n + i) * inner + k; }
};

AxisView view_around(const Shape& shape, int axis) {
  const int a = shape.normalize_axis(axis);                             // throws for an axis out of range
  AxisView v;
  for (int b = 0; b < a; ++b) v.outer *= shape[b];
  v.n = shape[a];
  for (int b = a + 1; b < shape.rank(); ++b) v.inner *= shape[b];
  return v;
}

}  // namespace

// ---- prefix_softmax ----

Tensor prefix_softmax(const Tensor& x, int axis, const Tensor& additive_mask) {
  const AxisView v = view_around(x.shape(), axis);                      // x as [outer, n, inner]
  Tensor y = Tensor::zeros(x.shape());                                  // same shape as x
  real* py = y.data();

  add_additive_mask(x, additive_mask, py, "prefix_softmax");           // z = x + m, in y's storage

  // One column (o, ·, k) at a time, front to back, with the running max M and running sum l.
  std::vector<real> lse(static_cast<size_t>(x.numel()));               // log of each position's normaliser
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t k = 0; k < v.inner; ++k) {
      real running_max = minus_infinity;                                // M_i = max_{j ≤ i} z_j
      real running_sum = 0;                                             // l_i = Σ_{j ≤ i} e^(z_j − M_i)
      for (int64_t i = 0; i < v.n; ++i) {
        const int64_t at = v.offset(o, i, k);
        const real z = py[at];
        if (z > running_max) {                                          // a new max: rescale the old sum to it
          running_sum *= std::exp(running_max - z);                     // e^(−inf) = 0 while nothing was seen
          running_max = z;
        }
        if (running_max == minus_infinity) {                            // nothing visible yet in this prefix
          py[at] = 0;
          lse[static_cast<size_t>(at)] = minus_infinity;
          continue;
        }
        const real term = std::exp(z - running_max);                    // e^(z_i − M_i), in [0, 1]
        running_sum += term;                                            // ≥ 1: the max's own term was e⁰
        py[at] = term / running_sum;                                    // y_i = e^(z_i) / Σ_{j ≤ i} e^(z_j)
        lse[static_cast<size_t>(at)] = running_max + std::log(running_sum);
      }
    }

  record(y, "prefix_softmax", {x}, [x, v, lse = std::move(lse)](TensorNode& out) {
    const real* g = out.grad.data();                                    // ∂loss/∂y, same shape as x
    const real* py = out.value.data();                                  // y, as computed above
    real* gx = x.grad();
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t k = 0; k < v.inner; ++k) {
        real suffix = 0;                                                // D_{i+1}, then D_i
        for (int64_t i = v.n - 1; i >= 0; --i) {
          const int64_t at = v.offset(o, i, k);
          const real lse_i = lse[static_cast<size_t>(at)];
          if (lse_i == minus_infinity) {                                // y_i = 0 and so are all earlier y
            suffix = 0;
            continue;
          }
          const real carried = (i + 1 < v.n) ? std::exp(lse_i - lse[static_cast<size_t>(v.offset(o, i + 1, k))]) *
                                                   suffix
                                             : real(0);                 // e^(lse_i − lse_{i+1}) · D_{i+1}
          suffix = g[at] * py[at] + carried;                            // D_i = g_i y_i + e^(…) D_{i+1}
          gx[at] += py[at] * (g[at] - suffix);                          // ∂z_i = y_i (g_i − D_i)
        }
      }
  });
  return y;
}

// ---- divide ----

Tensor divide(const Tensor& a, const Tensor& b) {
  Broadcast bc = make_broadcast(a.shape(), b.shape(), "divide");
  Tensor y = Tensor::zeros(bc.out);                                     // broadcast shape
  const real* pa = a.data();
  const real* pb = b.data();
  real* py = y.data();
  for_each_broadcast(bc, [&](int64_t o, int64_t i, int64_t j) { py[o] = pa[i] / pb[j]; });

  record(y, "divide", {a, b}, [a, b, bc](TensorNode& out) {
    const real* g = out.grad.data();
    const real* py = out.value.data();                                  // y = a / b
    const real* pb = b.data();
    real* ga = wants_grad(a) ? a.grad() : nullptr;
    real* gb = wants_grad(b) ? b.grad() : nullptr;
    for_each_broadcast(bc, [&](int64_t o, int64_t i, int64_t j) {
      if (ga) ga[i] += g[o] / pb[j];                                    // ∂(a/b)/∂a = 1/b
      if (gb) gb[j] -= g[o] * py[o] / pb[j];                            // ∂(a/b)/∂b = −a/b² = −y/b
    });
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
