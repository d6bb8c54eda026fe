// Exercise split_heads (chapter attention): multi-head attention's split of the features into heads, and the merge.
//
// Multi-head attention runs h attentions side by side, each on its own slice of d_k = d_model / h features
// ("Attention Is All You Need" §3.2.2). After the projection Q = x W_Qᵀ [B, T, d_model], head h's query of position
// t is the slice Q[b, t, h·d_k : (h + 1)·d_k]. One batched matmul does every head at once when the heads form an
// axis of their own, in front of time:
//
//   split       [B, T, d_model]  →  [B, h, T, d_k]        out[b, h, t, j] = x[b, t, h·d_k + j]
//   merge       [B, h, T, d_k]   →  [B, T, h·d_k]         out[b, t, h·d_k + j] = x[b, h, t, j]   (the concat of
//                                                         the heads, before W_O)
//
// Write both with the shape ops of src/autograd/ops.h — reshape(x, shape) (the same numbers in the same order,
// a new shape) and permute(x, axes) (out.shape[i] = x.shape[axes[i]]) — so that backward() can follow them: in
// training the gradient goes back through the split to W_Q, W_K and W_V. Mind the difference: a reshape never moves
// a number, and putting h in front of T has to.
// The library's versions are split_heads and merge_heads in src/attention/heads.cpp; multi_head.cpp calls them.
//
// Check:  tools/exercise.sh split_heads
//   check.cpp compares yours with the library's split_heads and merge_heads, on inputs whose numbers say where they
//   came from (x[b, t, f] = 1000·b + 100·t + f), and checks that a gradient flows back through yours.
#include "exercise.h"

namespace attnlab::exercises {

Tensor split_heads(const Tensor& x, int64_t heads) {
  const int64_t B = x.size(0), T = x.size(1), d_k = x.size(2) / heads;
  // TODO: reshape and permute x into [B, h, T, d_k].
  return Tensor::zeros({B, heads, T, d_k});                                  // [B, h, T, d_k]
}

Tensor merge_heads(const Tensor& x) {
  const int64_t B = x.size(0), h = x.size(1), T = x.size(2), d_k = x.size(3);
  // TODO: undo split_heads: [B, h, T, d_k] → [B, T, h·d_k].
  return Tensor::zeros({B, T, h * d_k});                                     // [B, T, d_model]
}

}  // namespace attnlab::exercises
