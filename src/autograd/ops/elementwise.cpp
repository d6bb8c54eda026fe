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
#include "autograd/ops/broadcast.h"
#include "autograd/ops.h"
#include "autograd/ops/parallel.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

// Calls f(o, i, j) over the broadcast to push the gradient into an input of shape `input`: in parallel when that
// input has the output's shape (each of its numbers fed one output), else in the one ordered walk (a sum).
template <typename F>
void for_each_gradient_term(const Broadcast& bc, const Shape& input, const F& f) {
  if (input == bc.out) for_each_broadcast_parallel(bc, f);
  else for_each_broadcast(bc, f);
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
    if (wants_grad(a)) {
      real* ga = a.grad();
      for_each_gradient_term(bc, a.shape(), [=](int64_t o, int64_t i, int64_t) { ga[i] += g[o]; });  // ∂(a+b)/∂a = 1
    }
    if (wants_grad(b)) {
      real* gb = b.grad();
      for_each_gradient_term(bc, b.shape(), [=](int64_t o, int64_t, int64_t j) { gb[j] += g[o]; });  // ∂(a+b)/∂b = 1
    }
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
    if (wants_grad(a)) {
      real* ga = a.grad();
      for_each_gradient_term(bc, a.shape(), [=](int64_t o, int64_t i, int64_t) { ga[i] += g[o]; });  // ∂(a-b)/∂a = 1
    }
    if (wants_grad(b)) {
      real* gb = b.grad();
      for_each_gradient_term(bc, b.shape(), [=](int64_t o, int64_t, int64_t j) { gb[j] -= g[o]; });  // ∂(a-b)/∂b = -1
    }
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
    if (wants_grad(a)) {
      real* ga = a.grad();
      for_each_gradient_term(bc, a.shape(), [=](int64_t o, int64_t i, int64_t j) { ga[i] += g[o] * pb[j]; });  // ∂(a⊙b)/∂a = b
    }
    if (wants_grad(b)) {
      real* gb = b.grad();
      for_each_gradient_term(bc, b.shape(), [=](int64_t o, int64_t i, int64_t j) { gb[j] += g[o] * pa[i]; });  // ∂(a⊙b)/∂b = a
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
    real* gx = x.grad();
    for_each_index(x.numel(), [=](int64_t i) { gx[i] += factor * g[i]; });  // ∂(c·x)/∂x = c
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
    real* gx = x.grad();
    for_each_index(x.numel(), [=](int64_t i) { gx[i] += g[i]; });       // ∂(x+c)/∂x = 1
  });
  return y;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
