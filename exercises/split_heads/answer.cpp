// answer.cpp — the project's answer to the split_heads exercise. Try exercise.cpp first: the check tells you where
// you are wrong.
//
// Row-major order puts feature h·d_k + j of position t right where [B, T, h, d_k]'s element (t, h, j) is, so
// a reshape splits the features into (head, j) without moving a number; moving h in front of T is a permute,
// which does move them. merge_heads is the same two steps backwards: the inverse permute (a swap undoes itself),
// then the reshape. The library's functions (src/attention/heads.cpp) are these same lines.
#include "autograd/ops.h"
#include "exercise.h"

namespace attnlab::exercises {

Tensor split_heads(const Tensor& x, int64_t heads) {
  const int64_t B = x.size(0), T = x.size(1), d_k = x.size(2) / heads;
  const Tensor per_head = reshape(x, {B, T, heads, d_k});                    // [B, T, h, d_k]: feature h·d_k + j
  return permute(per_head, {0, 2, 1, 3});                                    // [B, h, T, d_k]
}

Tensor merge_heads(const Tensor& x) {
  const int64_t B = x.size(0), h = x.size(1), T = x.size(2), d_k = x.size(3);
  const Tensor per_position = permute(x, {0, 2, 1, 3});                      // [B, T, h, d_k]
  return reshape(per_position, {B, T, h * d_k});                             // [B, T, d_model]: the heads side by side
}

}  // namespace attnlab::exercises
