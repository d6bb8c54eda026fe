// broadcast.cpp — the broadcast shape and the strides that read each input in it.
#include "autograd/ops/broadcast.h"

#include <algorithm>
#include <string>

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// Sizes left-padded with 1s to rank 4: [3, 4] → [1, 1, 3, 4].
std::array<int64_t, 4> padded_sizes(const Shape& s) {
  std::array<int64_t, 4> sizes{1, 1, 1, 1};
  for (int axis = 0; axis < s.rank(); ++axis) sizes[4 - s.rank() + axis] = s[axis];
  return sizes;
}

// Row-major strides of `sizes`, with 0 wherever the size is 1 but the output's is larger (broadcast).
std::array<int64_t, 4> broadcast_strides(const std::array<int64_t, 4>& sizes, const std::array<int64_t, 4>& out) {
  std::array<int64_t, 4> strides{};
  int64_t stride = 1;
  for (int axis = 3; axis >= 0; --axis) {
    strides[axis] = (sizes[axis] == 1 && out[axis] != 1) ? 0 : stride;
    stride *= sizes[axis];
  }
  return strides;
}

}  // namespace

Broadcast make_broadcast(const Shape& a, const Shape& b, const char* op) {
  Broadcast bc;
  std::array<int64_t, 4> sa = padded_sizes(a), sb = padded_sizes(b);
  for (int axis = 0; axis < 4; ++axis) {
    if (sa[axis] != sb[axis] && sa[axis] != 1 && sb[axis] != 1) {
      throw Error(std::string(op) + ": shapes " + a.str() + " and " + b.str() +
                  " cannot be broadcast together (sizes " + std::to_string(sa[axis]) + " and " +
                  std::to_string(sb[axis]) + " differ and neither is 1)");
    }
    bc.sizes[axis] = std::max(sa[axis], sb[axis]);
  }
  int out_rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out_sizes(bc.sizes.begin() + (4 - out_rank), bc.sizes.end());
  bc.out = Shape(out_sizes);
  bc.stride_a = broadcast_strides(sa, bc.sizes);
  bc.stride_b = broadcast_strides(sb, bc.sizes);
  bc.same_shape = (a == b);
  return bc;
}

void add_additive_mask(const Tensor& x, const Tensor& additive_mask, real* out, const char* op) {
  if (!additive_mask.defined()) {
    std::copy(x.data(), x.data() + x.numel(), out);
    return;
  }
  Broadcast bc = make_broadcast(x.shape(), additive_mask.shape(), op);
  if (bc.out != x.shape()) {
    throw Error(std::string(op) + ": the mask of shape " + additive_mask.shape().str() +
                " must broadcast to the scores' shape " + x.shape().str() + ", but together they make " +
                bc.out.str() + " (a mask may only have size-1 or missing axes where the scores do not)");
  }
  const real* px = x.data();
  const real* pm = additive_mask.data();
  for_each_broadcast(bc, [&](int64_t o, int64_t i, int64_t j) { out[o] = px[i] + pm[j]; });  // i == o here
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
