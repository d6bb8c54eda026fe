// add_to_grad.h — the one line every backward function writes: ∂x_i += term(i), for every number of x.
//
//   add_to_grad(x, term)   real* gx = x.grad();  for every i < x.numel():  gx[i] += term(i)
//
// "+=" because a tensor used twice receives one contribution per use (graph.h). x.grad() gives the gradient
// buffer, zero-filled on first use. The loop runs in fixed chunks shared among the threads (tensor/parallel.h):
// each number is written from its own term only, so the result is the same for any thread count. term is a lambda
// that captures its pointers by value ([=]), so the compiler can vectorise the loop.
#pragma once

#include "autograd/graph.h"
#include "tensor/parallel.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

template <typename Term>
void add_to_grad(const Tensor& x, const Term& term) {
  real* gx = x.grad();
  for_each_index(x.numel(), [=](int64_t i) { gx[i] += term(i); });
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
