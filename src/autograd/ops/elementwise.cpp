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
#include "autograd/ops/broadcast.h"
#include "autograd/ops.h"

namespace attnlab::inline ATTNLAB_PRECISION {

Tensor add(const Tensor& a, const Tensor& b) {
  Broadcast bc = make_broadcast(a.shape(), b.shape(), "add");
  Tensor y = Tensor::zeros(bc.out);                                     // broadcast shape
  const real* pa = a.data();
  const real* pb = b.data();
  real* py = y.data();
  for_each_broadcast(bc, [&](int64_t o, int64_t i, int64_t j) { py[o] = pa[i] + pb[j]; });

  record(y, "add", {a, b}, [a, b, bc](TensorNode& out) {
    const real* g = out.grad.data();
    real* ga = wants_grad(a) ? a.grad() : nullptr;
    real* gb = wants_grad(b) ? b.grad() : nullptr;
    for_each_broadcast(bc, [&](int64_t o, int64_t i, int64_t j) {
      if (ga) ga[i] += g[o];                                            // ∂(a+b)/∂a = 1
      if (gb) gb[j] += g[o];                                            // ∂(a+b)/∂b = 1
    });
  });
  return y;
}

Tensor sub(const Tensor& a, const Tensor& b) {
  Broadcast bc = make_broadcast(a.shape(), b.shape(), "sub");
  Tensor y = Tensor::zeros(bc.out);
  const real* pa = a.data();
  const real* pb = b.data();
  real* py = y.data();
  for_each_broadcast(bc, [&](int64_t o, int64_t i, int64_t j) { py[o] = pa[i] - pb[j]; });

  record(y, "sub", {a, b}, [a, b, bc](TensorNode& out) {
    const real* g = out.grad.data();
    real* ga = wants_grad(a) ? a.grad() : nullptr;
    real* gb = wants_grad(b) ? b.grad() : nullptr;
    for_each_broadcast(bc, [&](int64_t o, int64_t i, int64_t j) {
      if (ga) ga[i] += g[o];                                            // ∂(a-b)/∂a = 1
      if (gb) gb[j] -= g[o];                                            // ∂(a-b)/∂b = -1
    });
  });
  return y;
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Broadcast bc = make_broadcast(a.shape(), b.shape(), "mul");
  Tensor y = Tensor::zeros(bc.out);
  const real* pa = a.data();
  const real* pb = b.data();
  real* py = y.data();
  for_each_broadcast(bc, [&](int64_t o, int64_t i, int64_t j) { py[o] = pa[i] * pb[j]; });

  record(y, "mul", {a, b}, [a, b, bc](TensorNode& out) {
    const real* g = out.grad.data();
    const real* pa = a.data();
    const real* pb = b.data();
    real* ga = wants_grad(a) ? a.grad() : nullptr;
    real* gb = wants_grad(b) ? b.grad() : nullptr;
    for_each_broadcast(bc, [&](int64_t o, int64_t i, int64_t j) {
      if (ga) ga[i] += g[o] * pb[j];                                    // ∂(a⊙b)/∂a = b
      if (gb) gb[j] += g[o] * pa[i];                                    // ∂(a⊙b)/∂b = a
    });
  });
  return y;
}

Tensor scale(const Tensor& x, real factor) {
  Tensor y = Tensor::zeros(x.shape());                                  // same shape as x
  y.matrix() = factor * x.matrix();
  record(y, "scale", {x}, [x, factor](TensorNode& out) {
    MatrixMap gx = x.grad_matrix();
    gx += factor * ConstMatrixMap(out.grad.data(), gx.rows(), gx.cols());  // ∂(c·x)/∂x = c
  });
  return y;
}

Tensor add_scalar(const Tensor& x, real constant) {
  Tensor y = Tensor::zeros(x.shape());
  y.matrix() = x.matrix().array() + constant;
  record(y, "add_scalar", {x}, [x](TensorNode& out) {
    MatrixMap gx = x.grad_matrix();
    gx += ConstMatrixMap(out.grad.data(), gx.rows(), gx.cols());          // ∂(x+c)/∂x = 1
  });
  return y;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
