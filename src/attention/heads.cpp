// heads.cpp — splitting d_model into h heads of d_k = d_model / h, and merging them back.
//
// Multi-head attention runs h attentions side by side on h slices of the features. Slicing the last axis into
// [h, d_k] and moving h in front of time lets one batched matmul do every head at once:
//     [B, T, d_model] --reshape--> [B, T, h, d_k] --permute(0,2,1,3)--> [B, h, T, d_k]
// merge_heads is the inverse, and concatenates the heads' outputs along the features.
// score_scale is the 1/√d_k every softmax kind divides its scores by (scaled_dot.cpp says why).
#include <cmath>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

Tensor split_heads(const Tensor& x, int64_t heads) {
  const int64_t B = x.size(0), T = x.size(1), d_model = x.size(2);
  if (d_model % heads != 0) {
    throw Error("split_heads: d_model " + std::to_string(d_model) + " is not divisible by " +
                std::to_string(heads) + " heads");
  }
  Tensor per_head = reshape(x, {B, T, heads, d_model / heads});               // [B, T, h, d_k]
  return permute(per_head, {0, 2, 1, 3});                                     // [B, h, T, d_k]
}

real score_scale(int64_t d_k) { return static_cast<real>(1.0 / std::sqrt(static_cast<double>(d_k))); }

Tensor merge_heads(const Tensor& x) {
  const int64_t B = x.size(0), h = x.size(1), T = x.size(2), d_k = x.size(3);
  Tensor per_position = permute(x, {0, 2, 1, 3});                             // [B, T, h, d_k]
  return reshape(per_position, {B, T, h * d_k});                              // [B, T, d_model]
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
