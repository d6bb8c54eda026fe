// reductions.cpp — sum and mean (of everything, or along one axis), cumulative sum, division by a sum.
//
//   forward                                  backward (g = ∂loss/∂y)
//   y = Σ_i x_i                    [1]       ∂x_i += g            (every x_i contributes with weight 1)
//   y = (1/n) Σ_i x_i              [1]       ∂x_i += g / n
//   y = Σ_i x_i        along axis            ∂x_i += g            (g of the slice x_i was summed into)
//   y = (1/n) Σ_i x_i  along axis            ∂x_i += g / n
//   y_i = Σ_{j ≤ i} x_j            (cumsum)  ∂x_j += Σ_{i ≥ j} g_i   (x_j is in every y_i from i = j on:
//                                                                     a cumulative sum run backwards)
//   y_i = x_i / (s + ε),  s = Σ_j x_j        ∂x_j += (g_j - Σ_i g_i · y_i) / (s + ε)   (derived below)
//
// Working along one axis. Any tensor can be seen, around an axis of size n, as a 3-D block [outer, n, inner]:
// outer is the product of the sizes before the axis, inner the product of the sizes after it. Row-major order
// puts element (o, i, k) of that block at offset (o · n + i) · inner + k, so a slice along the axis — the n
// numbers that one output sums over — is (o, 0..n-1, k), spaced `inner` apart. For x [2, 3, 4]:
//     axis 0 → [1, 2, 12],   axis 1 → [2, 3, 4],   axis 2 (or -1) → [6, 4, 1].
// The same three loops then serve the first, a middle, the last or a negative axis of any rank.
#include <string>
#include <vector>

#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// x seen as [outer, n, inner] around one axis.
struct AxisView {
  int axis = 0;       // normalised to [0, rank)
  int64_t outer = 1;  // product of the sizes before the axis
  int64_t n = 1;      // the axis' own size
  int64_t inner = 1;  // product of the sizes after the axis

  int64_t offset(int64_t o, int64_t i, int64_t k) const { return (o * n + i) * inner + k; }
};

AxisView view_around(const Shape& shape, int axis) {
  AxisView v;
  v.axis = shape.normalize_axis(axis);                                  // throws for an axis out of range
  for (int a = 0; a < v.axis; ++a) v.outer *= shape[a];
  v.n = shape[v.axis];
  for (int a = v.axis + 1; a < shape.rank(); ++a) v.inner *= shape[a];
  return v;
}

// The shape after reducing `axis`: that size becomes 1 (keepdim) or the axis disappears. A rank-1 input has
// no axis left to keep, so it gives [1] — a single number, as sum(x) of everything does.
Shape reduced_shape(const Shape& shape, int axis, bool keepdim) {
  std::vector<int64_t> sizes = shape.sizes();
  if (keepdim || sizes.size() == 1) {
    sizes[static_cast<size_t>(axis)] = 1;
  } else {
    sizes.erase(sizes.begin() + axis);
  }
  return Shape(sizes);
}

}  // namespace

// ---- Everything → [1] ----

// Σ x in one fixed order, accumulated in double. (Eigen's vectorised .sum() would be shorter, but its order of
// additions — and so the last bit — depends on how the buffer is aligned in memory, which differs between runs.)
double ordered_sum(const Tensor& x) {
  double total = 0;
  for (real v : x.values()) total += static_cast<double>(v);
  return total;
}

Tensor sum(const Tensor& x) {
  Tensor y = Tensor::zeros({1});                                        // [1]
  y.data()[0] = static_cast<real>(ordered_sum(x));
  record(y, "sum", {x}, [x](TensorNode& out) {
    x.grad_matrix().array() += out.grad[0];                             // ∂(Σx)/∂x_i = 1
  });
  return y;
}

Tensor mean(const Tensor& x) {
  const real n = static_cast<real>(x.numel());
  Tensor y = Tensor::zeros({1});                                        // [1]
  y.data()[0] = static_cast<real>(ordered_sum(x) / static_cast<double>(x.numel()));
  record(y, "mean", {x}, [x, n](TensorNode& out) {
    x.grad_matrix().array() += out.grad[0] / n;                         // ∂(Σx/n)/∂x_i = 1/n
  });
  return y;
}

// ---- Along one axis ----
// sum and mean differ only by the factor 1/n, so both use this: y[o, k] = weight · Σ_i x[o, i, k].
namespace {

Tensor weighted_sum_along(const Tensor& x, int axis, bool keepdim, const char* op, bool divide_by_n) {
  const AxisView v = view_around(x.shape(), axis);                      // x as [outer, n, inner]
  const real weight = divide_by_n ? real(1) / static_cast<real>(v.n) : real(1);
  Tensor y = Tensor::zeros(reduced_shape(x.shape(), v.axis, keepdim));  // [outer, inner], in x's axes
  const real* px = x.data();
  real* py = y.data();
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t i = 0; i < v.n; ++i)
      for (int64_t k = 0; k < v.inner; ++k) py[o * v.inner + k] += weight * px[v.offset(o, i, k)];

  record(y, op, {x}, [x, v, weight](TensorNode& out) {
    // Backward of y[o, k] = weight · Σ_i x[o, i, k]: every x[o, i, k] receives weight · g[o, k].
    const real* g = out.grad.data();                                    // [outer, inner]
    real* gx = x.grad();                                                // [outer, n, inner]
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t i = 0; i < v.n; ++i)
        for (int64_t k = 0; k < v.inner; ++k) gx[v.offset(o, i, k)] += weight * g[o * v.inner + k];
  });
  return y;
}

}  // namespace

Tensor sum(const Tensor& x, int axis, bool keepdim) {
  return weighted_sum_along(x, axis, keepdim, "sum", /*divide_by_n=*/false);
}

Tensor mean(const Tensor& x, int axis, bool keepdim) {
  return weighted_sum_along(x, axis, keepdim, "mean", /*divide_by_n=*/true);
}

// ---- Cumulative sum ----
// Forward runs along the axis adding as it goes; backward runs the other way. Written out for n = 3:
//     y_0 = x_0,  y_1 = x_0 + x_1,  y_2 = x_0 + x_1 + x_2
//     ∂x_0 = g_0 + g_1 + g_2,  ∂x_1 = g_1 + g_2,  ∂x_2 = g_2
Tensor cumsum(const Tensor& x, int axis) {
  const AxisView v = view_around(x.shape(), axis);                      // x as [outer, n, inner]
  Tensor y = Tensor::zeros(x.shape());                                  // same shape as x
  const real* px = x.data();
  real* py = y.data();
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t k = 0; k < v.inner; ++k) {
      real running = 0;
      for (int64_t i = 0; i < v.n; ++i) {
        running += px[v.offset(o, i, k)];
        py[v.offset(o, i, k)] = running;                                // y_i = Σ_{j ≤ i} x_j
      }
    }

  record(y, "cumsum", {x}, [x, v](TensorNode& out) {
    const real* g = out.grad.data();                                    // same shape as x
    real* gx = x.grad();
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t k = 0; k < v.inner; ++k) {
        real running = 0;
        for (int64_t j = v.n - 1; j >= 0; --j) {
          running += g[v.offset(o, j, k)];
          gx[v.offset(o, j, k)] += running;                             // ∂x_j = Σ_{i ≥ j} g_i
        }
      }
  });
  return y;
}

// ---- Division by the sum along an axis (L1 normalisation) ----
// Forward, for one slice x_0 … x_{n-1} along the axis:
//     s = Σ_j x_j,    y_i = x_i / (s + ε)
// Backward. y_i depends on x_j directly (when i = j) and through s (always, ∂s/∂x_j = 1):
//     ∂y_i/∂x_j = δ_ij / (s + ε) - x_i / (s + ε)²  =  (δ_ij - y_i) / (s + ε)
// so, summing over the outputs with the chain rule,
//     ∂x_j = Σ_i g_i · ∂y_i/∂x_j = (g_j - Σ_i g_i · y_i) / (s + ε)
// Backward needs y (the output's own values, out.value) and one denominator s + ε per slice, saved here.
// Nothing guards s + ε = 0: the inputs are meant to be positive (e.g. the feature maps of linear attention),
// and eps is the knob that keeps the denominator away from zero.
Tensor divide_by_sum(const Tensor& x, int axis, real eps) {
  const AxisView v = view_around(x.shape(), axis);                      // x as [outer, n, inner]
  Tensor y = Tensor::zeros(x.shape());                                  // same shape as x
  std::vector<real> denominators(static_cast<size_t>(v.outer * v.inner));  // [outer, inner]: s + ε
  const real* px = x.data();
  real* py = y.data();
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t k = 0; k < v.inner; ++k) {
      real s = 0;
      for (int64_t i = 0; i < v.n; ++i) s += px[v.offset(o, i, k)];    // s = Σ_j x_j
      const real denominator = s + eps;
      denominators[static_cast<size_t>(o * v.inner + k)] = denominator;
      for (int64_t i = 0; i < v.n; ++i) py[v.offset(o, i, k)] = px[v.offset(o, i, k)] / denominator;
    }

  record(y, "divide_by_sum", {x}, [x, v, denominators = std::move(denominators)](TensorNode& out) {
    const real* g = out.grad.data();                                    // same shape as x
    const real* py = out.value.data();                                  // y, as computed above
    real* gx = x.grad();
    for (int64_t o = 0; o < v.outer; ++o)
      for (int64_t k = 0; k < v.inner; ++k) {
        real g_dot_y = 0;                                               // Σ_i g_i · y_i
        for (int64_t i = 0; i < v.n; ++i) g_dot_y += g[v.offset(o, i, k)] * py[v.offset(o, i, k)];
        const real denominator = denominators[static_cast<size_t>(o * v.inner + k)];
        for (int64_t j = 0; j < v.n; ++j) {
          gx[v.offset(o, j, k)] += (g[v.offset(o, j, k)] - g_dot_y) / denominator;  // (g_j - Σ g·y) / (s + ε)
        }
      }
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
