// elementwise.cpp — add, sub, mul (with broadcasting), scale and add_scalar.
//
//   forward                 backward (g = ∂loss/∂y)
//   y = a + b               ∂a += g,        ∂b += g
//   y = a - b               ∂a += g,        ∂b -= g
//   y = a ⊙ b               ∂a += g ⊙ b,    ∂b += g ⊙ a
//   y = c · x               ∂x += c · g
//   y = x + c               ∂x += g
// When an input was broadcast (read with stride 0 along an axis), several outputs used the same input number,
// so the "+=" sums their gradients — exactly the reduction over the broadcast axes.
//
// Threads: the forward loops and the gradient of an input that has the output's shape touch each number once, so
// their rows are shared among the threads (for_each_broadcast_parallel, ops/broadcast.h). The gradient of a
// broadcast input is a sum over several outputs: it keeps the one ordered walk, the same bits for any thread count.
#include "autograd/ops.h"
#include "autograd/ops/add_to_grad.h"
#include "autograd/ops/broadcast.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// ∂input += the gradient term(o) of each output o it fed, for add and sub (whose terms need only o). An input of
// the output's shape fed exactly one output per number (its index is o): add_to_grad, in parallel. A broadcast
// input (`is_a` says which of the two it is) sums the terms of several outputs: a row added to every position
// (x [B, T, d] + b [d], a bias) by add_column_sums, in parallel in a fixed order; any other broadcast by the one
// ordered walk.
template <typename Term>
void add_gradient(const Tensor& input, const Broadcast& bc, const Term& term, bool is_a) {
  if (input.shape() == bc.out) {
    add_to_grad(input, term);
    return;
  }
  real* gi = input.grad();
  const std::array<int64_t, 4>& stride = is_a ? bc.stride_a : bc.stride_b;
  const int64_t d = bc.sizes[3];
  if (input.numel() == d && stride[0] == 0 && stride[1] == 0 && stride[2] == 0) {  // one row, read by every row
    add_column_sums(bc.out.numel() / d, d, term, gi);                   // ∂b_j = Σ_rows term
    return;
  }
  if (is_a) for_each_broadcast(bc, [=](int64_t o, int64_t i, int64_t) { gi[i] += term(o); });
  else for_each_broadcast(bc, [=](int64_t o, int64_t, int64_t j) { gi[j] += term(o); });
}

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
  Broadcast bc = make_broadcast(a.shape(), b.shape(), "add");
  Tensor y = Tensor::empty(bc.out);                                     // broadcast shape, every number written
  const real* pa = a.data();
  const real* pb = b.data();
  real* py = y.data();
  for_each_broadcast_parallel(bc, [=](int64_t o, int64_t i, int64_t j) { py[o] = pa[i] + pb[j]; });

  record(y, "add", {a, b}, [a, b, bc](TensorNode& out) {
    const real* g = out.grad.data();
    if (wants_grad(a)) add_gradient(a, bc, [=](int64_t o) { return g[o]; }, true);   // ∂(a+b)/∂a = 1
    if (wants_grad(b)) add_gradient(b, bc, [=](int64_t o) { return g[o]; }, false);  // ∂(a+b)/∂b = 1
  });
  return y;
}

Tensor sub(const Tensor& a, const Tensor& b) {
  Broadcast bc = make_broadcast(a.shape(), b.shape(), "sub");
  Tensor y = Tensor::empty(bc.out);
  const real* pa = a.data();
  const real* pb = b.data();
  real* py = y.data();
  for_each_broadcast_parallel(bc, [=](int64_t o, int64_t i, int64_t j) { py[o] = pa[i] - pb[j]; });

  record(y, "sub", {a, b}, [a, b, bc](TensorNode& out) {
    const real* g = out.grad.data();
    if (wants_grad(a)) add_gradient(a, bc, [=](int64_t o) { return g[o]; }, true);   // ∂(a-b)/∂a = 1
    if (wants_grad(b)) add_gradient(b, bc, [=](int64_t o) { return -g[o]; }, false); // ∂(a-b)/∂b = -1
  });
  return y;
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Broadcast bc = make_broadcast(a.shape(), b.shape(), "mul");
  Tensor y = Tensor::empty(bc.out);
  const real* pa = a.data();
  const real* pb = b.data();
  real* py = y.data();
  for_each_broadcast_parallel(bc, [=](int64_t o, int64_t i, int64_t j) { py[o] = pa[i] * pb[j]; });

  record(y, "mul", {a, b}, [a, b, bc](TensorNode& out) {
    const real* g = out.grad.data();
    const real* pa = a.data();
    const real* pb = b.data();
    if (wants_grad(a)) {                                                // ∂(a⊙b)/∂a = b
      real* ga = a.grad();
      auto term = [=](int64_t o, int64_t i, int64_t j) { ga[i] += g[o] * pb[j]; };
      if (a.shape() == bc.out) for_each_broadcast_parallel(bc, term);  // one output per number of a
      else for_each_broadcast(bc, term);                                // a sum over the broadcast axes, in order
    }
    if (wants_grad(b)) {                                                // ∂(a⊙b)/∂b = a
      real* gb = b.grad();
      auto term = [=](int64_t o, int64_t i, int64_t j) { gb[j] += g[o] * pa[i]; };
      if (b.shape() == bc.out) for_each_broadcast_parallel(bc, term);
      else for_each_broadcast(bc, term);
    }
  });
  return y;
}

Tensor scale(const Tensor& x, real factor) {
  Tensor y = Tensor::empty(x.shape());                                  // same shape as x
  const real* px = x.data();
  real* py = y.data();
  for_each_index(x.numel(), [=](int64_t i) { py[i] = factor * px[i]; });  // y = c · x
  record(y, "scale", {x}, [x, factor](TensorNode& out) {
    const real* g = out.grad.data();
    add_to_grad(x, [=](int64_t i) { return factor * g[i]; });          // ∂(c·x)/∂x = c
  });
  return y;
}

Tensor add_scalar(const Tensor& x, real constant) {
  Tensor y = Tensor::empty(x.shape());
  const real* px = x.data();
  real* py = y.data();
  for_each_index(x.numel(), [=](int64_t i) { py[i] = px[i] + constant; });  // y = x + c
  record(y, "add_scalar", {x}, [x](TensorNode& out) {
    const real* g = out.grad.data();
    add_to_grad(x, [=](int64_t i) { return g[i]; });                    // ∂(x+c)/∂x = 1
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
