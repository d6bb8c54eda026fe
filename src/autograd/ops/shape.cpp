// shape.cpp — reshape, permute, transpose, slice, concat: ops that move numbers without changing them.
//
// attnlab's tensors are always contiguous and row-major, so each of these copies the numbers into their new
// places. (PyTorch often returns a view with new strides instead; a copy costs a little time, but there is only
// one memory layout to reason about.) Every output number is exactly one input number, so each backward sends
// the gradient back along the same path, and an input number that was not used (outside a slice) gets nothing:
//
//   forward                                                  backward (g = ∂loss/∂y)
//   y = reshape(x, s)          y_i = x_i, read in order      ∂x_i += g_i
//   y = permute(x, p)          y[i_0, …, i_r-1] = x[j]       ∂x += permute(g, p⁻¹)    where p⁻¹[p[a]] = a
//                              with j_p[a] = i_a, so
//                              y.shape[a] = x.shape[p[a]]
//   y = transpose(x, a, b)     permute swapping a and b      ∂x += transpose(g, a, b) (a swap undoes itself)
//   y = slice(x, axis, s, e)   y[…, i, …] = x[…, s + i, …]   ∂x[…, s + i, …] += g[…, i, …]      0 ≤ i < e - s
//   y = concat({x_0, …}, axis) y[…, o_t + i, …] = x_t[…, i, …]  ∂x_t[…, i, …] += g[…, o_t + i, …]
//                              at offsets o_t = Σ_{u<t} x_u.shape[axis]
//
// The example to keep in mind is splitting d_model into heads for attention (Vaswani et al. 2017, §3.2.2):
//     x [B, T, d_model] → reshape [B, T, h, d_k] → permute {0, 2, 1, 3} → [B, h, T, d_k]
// and merging them back with the inverse permutation and a reshape.
#include <algorithm>
#include <string>

#include "autograd/ops.h"
#include "tensor/storage.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A possibly negative axis of `s` in [0, rank); throws an attnlab::Error naming the op otherwise.
int checked_axis(const Shape& s, int axis, const char* op) {
  const int positive = axis < 0 ? axis + s.rank() : axis;
  if (positive < 0 || positive >= s.rank()) {
    throw Error(std::string(op) + ": axis " + std::to_string(axis) + " is out of range for a tensor of shape " +
                s.str() + " (its axes are 0 to " + std::to_string(s.rank() - 1) + ", or -" +
                std::to_string(s.rank()) + " to -1 counting from the end)");
  }
  return positive;
}

std::string axes_text(const std::vector<int>& axes) {  // "{0, 2, 1, 3}"
  std::string text = "{";
  for (size_t i = 0; i < axes.size(); ++i) text += (i ? ", " : "") + std::to_string(axes[i]);
  return text + "}";
}

// Row-major strides: how far apart in memory two neighbours along each axis are. [2, 3, 4] → {12, 4, 1}.
std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> strides(static_cast<size_t>(s.rank()));
  int64_t stride = 1;
  for (int axis = s.rank() - 1; axis >= 0; --axis) {
    strides[static_cast<size_t>(axis)] = stride;
    stride *= s[axis];
  }
  return strides;
}

// dst = permute(src, axes), or dst += … when `add` (backward adds into a gradient; forward writes every number
// of a new y, so y need not be zero-filled first): walk dst in row-major order; along dst's axis a, step through
// src along its axis axes[a]. Shapes are left-padded to rank 4 (a padded axis has size 1) so that four loops
// cover every rank.
void permute_into(const real* src, const Shape& src_shape, const std::vector<int>& axes, real* dst, bool add) {
  const int rank = src_shape.rank();
  const std::vector<int64_t> src_strides = strides_of(src_shape);
  int64_t size[4] = {1, 1, 1, 1};     // dst's sizes
  int64_t stride[4] = {0, 0, 0, 0};   // src's stride along each of dst's axes
  for (int a = 0; a < rank; ++a) {
    size[4 - rank + a] = src_shape[axes[static_cast<size_t>(a)]];
    stride[4 - rank + a] = src_strides[static_cast<size_t>(axes[static_cast<size_t>(a)])];
  }
  int64_t out = 0;
  for (int64_t i0 = 0; i0 < size[0]; ++i0)
    for (int64_t i1 = 0; i1 < size[1]; ++i1)
      for (int64_t i2 = 0; i2 < size[2]; ++i2) {
        const real* row = src + i0 * stride[0] + i1 * stride[1] + i2 * stride[2];
        for (int64_t i3 = 0; i3 < size[3]; ++i3, ++out) {
          const real number = row[i3 * stride[3]];
          dst[out] = add ? dst[out] + number : number;
        }
      }
}

// permute, recorded under the name `op` (so that a transpose shows up as "transpose" in errors and traces).
Tensor permute_as(const Tensor& x, const std::vector<int>& axes, const char* op) {
  const Shape& s = x.shape();
  if (static_cast<int>(axes.size()) != s.rank()) {
    throw Error(std::string(op) + ": " + axes_text(axes) + " lists " + std::to_string(axes.size()) +
                " axes, but a tensor of shape " + s.str() + " has " + std::to_string(s.rank()) +
                " (a permutation names every axis exactly once)");
  }
  std::vector<int> p(axes.size());         // the axes, negative ones counted from the end
  std::vector<int> inverse(axes.size(), -1);  // p⁻¹: inverse[p[a]] = a
  for (int a = 0; a < s.rank(); ++a) {
    const int axis = checked_axis(s, axes[static_cast<size_t>(a)], op);
    if (inverse[static_cast<size_t>(axis)] != -1) {
      throw Error(std::string(op) + ": " + axes_text(axes) + " is not a permutation of the axes of a tensor of "
                  "shape " + s.str() + ": axis " + std::to_string(axis) + " appears twice");
    }
    p[static_cast<size_t>(a)] = axis;
    inverse[static_cast<size_t>(axis)] = a;
  }
  std::vector<int64_t> out_sizes;
  for (int axis : p) out_sizes.push_back(s[axis]);

  Tensor y = Tensor::empty(Shape(out_sizes));                           // y.shape[a] = x.shape[p[a]], all written
  permute_into(x.data(), s, p, y.data(), /*add=*/false);                // y = permute(x, p)
  record(y, op, {x}, [x, inverse, out_shape = y.shape()](TensorNode& out) {
    permute_into(out.grad.data(), out_shape, inverse, x.grad(), /*add=*/true);   // ∂x += permute(g, p⁻¹)
  });
  return y;
}

// A tensor seen around one axis as [outer, size, inner]: outer is the product of the sizes before the axis,
// inner of the sizes after. Element (o, i, r) sits at (o·size + i)·inner + r, so each step along the axis is a
// contiguous run of `inner` numbers, and slice and concat copy whole runs.
struct AroundAxis {
  int64_t outer = 1, size = 1, inner = 1;
};

AroundAxis around_axis(const Shape& s, int axis) {
  AroundAxis v;
  for (int a = 0; a < axis; ++a) v.outer *= s[a];
  v.size = s[axis];
  for (int a = axis + 1; a < s.rank(); ++a) v.inner *= s[a];
  return v;
}

// s with the size along `axis` replaced.
Shape with_size(const Shape& s, int axis, int64_t size) {
  std::vector<int64_t> sizes = s.sizes();
  sizes[static_cast<size_t>(axis)] = size;
  return Shape(sizes);
}

}  // namespace

Tensor reshape(const Tensor& x, const Shape& shape) {
  if (shape.rank() == 0 || shape.numel() != x.numel()) {
    throw Error("reshape: cannot reshape a tensor of shape " + x.shape().str() + " into " + shape.str() +
                ": they hold " + std::to_string(x.numel()) + " and " + std::to_string(shape.numel()) +
                " numbers");
  }
  Tensor y = Tensor::from_values(shape, acquire_storage_copy(x.values()));   // [shape], the same numbers in order
  record(y, "reshape", {x}, [x](TensorNode& out) {
    real* gx = x.grad();
    for (size_t i = 0; i < out.grad.size(); ++i) gx[i] += out.grad[i];  // ∂x_i += g_i
  });
  return y;
}

Tensor permute(const Tensor& x, const std::vector<int>& axes) { return permute_as(x, axes, "permute"); }

Tensor transpose(const Tensor& x, int axis_a, int axis_b) {
  std::vector<int> axes(static_cast<size_t>(x.rank()));
  for (int a = 0; a < x.rank(); ++a) axes[static_cast<size_t>(a)] = a;  // {0, 1, …}, then swap two
  std::swap(axes[static_cast<size_t>(checked_axis(x.shape(), axis_a, "transpose"))],
            axes[static_cast<size_t>(checked_axis(x.shape(), axis_b, "transpose"))]);
  return permute_as(x, axes, "transpose");
}

Tensor slice(const Tensor& x, int axis, int64_t start, int64_t end) {
  const int ax = checked_axis(x.shape(), axis, "slice");
  const AroundAxis v = around_axis(x.shape(), ax);                      // x as [outer, size, inner]
  if (start < 0 || start > end || end > v.size) {
    throw Error("slice: [" + std::to_string(start) + ", " + std::to_string(end) + ") does not fit axis " +
                std::to_string(axis) + " of a tensor of shape " + x.shape().str() + " (need 0 ≤ start ≤ end ≤ " +
                std::to_string(v.size) + ")");
  }
  const int64_t width = end - start;
  Tensor y = Tensor::zeros(with_size(x.shape(), ax, width));            // x's shape, `width` along axis
  for (int64_t o = 0; o < v.outer; ++o) {                               // y[o, i, r] = x[o, start + i, r]
    const real* from = x.data() + (o * v.size + start) * v.inner;
    std::copy(from, from + width * v.inner, y.data() + o * width * v.inner);
  }
  record(y, "slice", {x}, [x, v, start, width](TensorNode& out) {
    real* gx = x.grad();
    for (int64_t o = 0; o < v.outer; ++o) {                             // ∂x[o, start + i, r] += g[o, i, r]
      real* to = gx + (o * v.size + start) * v.inner;
      const real* g = out.grad.data() + o * width * v.inner;
      for (int64_t j = 0; j < width * v.inner; ++j) to[j] += g[j];
    }
  });
  return y;
}

Tensor concat(const std::vector<Tensor>& xs, int axis) {
  if (xs.empty()) throw Error("concat: needs at least one tensor to join, but the list is empty");
  const Shape& first = xs[0].shape();
  const int ax = checked_axis(first, axis, "concat");
  int64_t total = 0;                                                    // y's size along axis
  for (size_t t = 0; t < xs.size(); ++t) {
    const Shape& s = xs[t].shape();
    bool fits = s.rank() == first.rank();
    for (int a = 0; fits && a < s.rank(); ++a) fits = (a == ax || s[a] == first[a]);
    if (!fits) {
      throw Error("concat: along axis " + std::to_string(axis) + ", tensor " + std::to_string(t) + " of shape " +
                  s.str() + " does not fit tensor 0 of shape " + first.str() +
                  " (they need the same rank and the same sizes on every other axis)");
    }
    total += s[ax];
  }
  Tensor y = Tensor::zeros(with_size(first, ax, total));                // [..., Σ size_t, ...]
  const AroundAxis v = around_axis(y.shape(), ax);                      // y as [outer, total, inner]
  int64_t offset = 0;                                                   // o_t: where x_t starts along axis
  for (const Tensor& x : xs) {
    const int64_t run = x.size(ax) * v.inner;                           // x_t's numbers per outer index
    for (int64_t o = 0; o < v.outer; ++o) {                             // y[o, o_t + i, r] = x_t[o, i, r]
      std::copy(x.data() + o * run, x.data() + (o + 1) * run, y.data() + (o * v.size + offset) * v.inner);
    }
    offset += x.size(ax);
  }
  record(y, "concat", xs, [xs, v, ax](TensorNode& out) {
    int64_t offset = 0;
    for (const Tensor& x : xs) {
      const int64_t run = x.size(ax) * v.inner;
      if (wants_grad(x)) {
        real* gx = x.grad();
        for (int64_t o = 0; o < v.outer; ++o) {                         // ∂x_t[o, i, r] += g[o, o_t + i, r]
          const real* g = out.grad.data() + (o * v.size + offset) * v.inner;
          for (int64_t j = 0; j < run; ++j) gx[o * run + j] += g[j];
        }
      }
      offset += x.size(ax);
    }
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
