// gradient_buffer.h — a kernel's saving on its gradient buffers: the first contribution is written, not added.
//
// The plain rule of chapter 2 (autograd/ops/add_to_grad.h) is ∂x += …, into x.grad(), which zero-fills a new
// buffer on first use: a pass that writes zeros and, in the +=, a pass that reads them back. A fused kernel that
// writes every number of an input's gradient itself can skip both when nothing has arrived in that buffer yet:
//   gradient_buffer(x, first)   x's gradient buffer, and whether this is the first contribution (first = true:
//                               a buffer never zero-filled, to be written with =, every number of it);
//                               nullptr (first = false) when x wants no gradient
// 0 + t = t, so the numbers are the same as the plain rule's.
//
// And when an input's gradient is the output's gradient itself (∂x = g, as for x in y = x + s), the first
// contribution need not even be written:
//   take_output_gradient(out, x)   x's gradient becomes out's gradient buffer, moved, not copied — when x has
//                                  none yet and is out's size; false (nothing done) otherwise: then add g
// This is safe because out's gradient is spent once out's backward has run: backward() (graph.cpp) releases it
// right after. Only a one-number output could be the loss, whose gradient of 1 backward() keeps, so a
// one-number output is never taken from.
#pragma once

#include "autograd/graph.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

inline real* gradient_buffer(const Tensor& x, bool& first) {
  first = false;
  if (!wants_grad(x)) return nullptr;
  first = !x.has_grad();
  return first ? x.grad_for_overwrite() : x.grad();
}

inline bool take_output_gradient(TensorNode& out, const Tensor& x) {
  if (!wants_grad(x) || x.has_grad() || out.grad.size() <= 1 || out.grad.size() != x.values().size()) {
    return false;
  }
  x.node_ptr()->grad = std::move(out.grad);                             // ∂x = g, the very numbers
  return true;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
