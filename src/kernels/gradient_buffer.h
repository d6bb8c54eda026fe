// gradient_buffer.h — a kernel's saving on its gradient buffers: the first contribution is written, not added.
//
// The plain rule of chapter 2 (autograd/ops/add_to_grad.h) is ∂x += …, into x.grad(), which zero-fills a new
// buffer on first use: a pass that writes zeros and, in the +=, a pass that reads them back. A fused kernel that
// writes every number of an input's gradient itself can skip both when nothing has arrived in that buffer yet:
//   gradient_buffer(x, first)   x's gradient buffer, and whether this is the first contribution (first = true:
//                               a buffer never zero-filled, to be written with =, every number of it);
//                               nullptr (first = false) when x wants no gradient
// 0 + t = t, so the numbers are the same as the plain rule's.
#pragma once

#include "autograd/graph.h"

namespace attnlab::inline ATTNLAB_PRECISION {

inline real* gradient_buffer(const Tensor& x, bool& first) {
  first = false;
  if (!wants_grad(x)) return nullptr;
  first = !x.has_grad();
  return first ? x.grad_for_overwrite() : x.grad();
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
