// activations.cpp — the elementwise nonlinearities: relu, gelu, tanh, exp, log, elu_plus_one.
//
// Each output number depends on one input number only, y_i = f(x_i), so the Jacobian is diagonal and the chain
// rule is a product, number by number: ∂x_i += g_i · f'(x_i), g = ∂loss/∂y.
//
//   forward                                   backward (g = ∂loss/∂y)
//   relu:  y = max(x, 0)                      ∂x += g · [x > 0]              (0 at the kink x = 0, as PyTorch)
//   gelu:  y = x · Φ(x)                       ∂x += g · (Φ(x) + x · φ(x))    (product rule)
//          Φ(x) = ½ (1 + erf(x / √2))  the standard normal CDF,  φ(x) = e^(−x²/2) / √(2π)  its density (= Φ')
//   tanh:  y = tanh(x)                        ∂x += g · (1 − y²)
//   exp:   y = eˣ                             ∂x += g · y
//   log:   y = ln x                           ∂x += g / x
//   elu+1: y = x + 1 if x > 0, else eˣ        ∂x += g · (1 if x > 0, else eˣ = y)
//
// gelu is the exact erf form (PyTorch's default nn.GELU(), approximate='none'), not the tanh approximation.
// elu_plus_one is the positive feature map φ of linear attention ("Transformers are RNNs", Katharopoulos et
// al. 2020): it is > 0 everywhere, so φ(q)·φ(k) can stand in for the softmax's e^(q·k).
// log follows IEEE arithmetic: ln 0 = −inf and ln of a negative number is NaN; nothing is thrown.
//
// tanh and exp reuse their output in backward. The backward function receives the output's own node (`out`),
// so y is out.value: saved for free, without capturing y (which would make the node own itself).
// record() links a backward function only when x wants a gradient, so these one-input backwards need no check.
// Everything here is a plain loop over the numbers, in the shape they come in: the output has x's shape. The loops
// run through for_each_index (tensor/parallel.h), which shares the numbers among the threads in chunks fixed by n: each
// number is computed from its own inputs alone, so the result is the same for any thread count. Backward adds
// through add_to_grad, which writes instead of adding when this is the first gradient x receives.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "autograd/ops.h"
#include "autograd/ops/add_to_grad.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

Tensor relu(const Tensor& x) {
  Tensor y = Tensor::empty(x.shape());                                  // same shape as x, all written
  const int64_t n = x.numel();
  const real* px = x.data();
  real* py = y.data();
  for_each_index(n, [=](int64_t i) { py[i] = std::max(px[i], real(0)); });     // y = max(x, 0) (NaN stays NaN)

  record(y, "relu", {x}, [x](TensorNode& out) {
    const real* g = out.grad.data();                                    // same shape as x
    const real* px = x.data();
    add_to_grad(x, [=](int64_t i) { return px[i] > 0 ? g[i] : real(0); });  // ∂max(x, 0)/∂x = [x > 0]
  });
  return y;
}

Tensor gelu(const Tensor& x) {
  constexpr real inv_sqrt2 = real(1) / std::numbers::sqrt2_v<real>;                        // 1/√2
  constexpr real inv_sqrt_2pi = std::numbers::inv_sqrtpi_v<real> / std::numbers::sqrt2_v<real>;  // 1/√(2π)
  Tensor y = Tensor::empty(x.shape());                                  // same shape as x, all written
  const int64_t n = x.numel();
  const real* px = x.data();
  real* py = y.data();
  for_each_index(n, [=](int64_t i) {
    real cdf = real(0.5) * (1 + std::erf(px[i] * inv_sqrt2));          // Φ(x)
    py[i] = px[i] * cdf;                                                // y = x · Φ(x)
  });

  record(y, "gelu", {x}, [x](TensorNode& out) {
    const real* g = out.grad.data();                                    // same shape as x
    const real* px = x.data();
    add_to_grad(x, [=](int64_t i) {
      real cdf = real(0.5) * (1 + std::erf(px[i] * inv_sqrt2));        // Φ(x)
      real pdf = std::exp(real(-0.5) * px[i] * px[i]) * inv_sqrt_2pi;   // φ(x) = Φ'(x)
      return g[i] * (cdf + px[i] * pdf);                                // ∂(x·Φ(x))/∂x = Φ(x) + x·φ(x)
    });
  });
  return y;
}

Tensor tanh(const Tensor& x) {
  Tensor y = Tensor::empty(x.shape());                                  // same shape as x, all written
  const int64_t n = x.numel();
  const real* px = x.data();
  real* py = y.data();
  for_each_index(n, [=](int64_t i) { py[i] = std::tanh(px[i]); });             // y = tanh(x)

  record(y, "tanh", {x}, [x](TensorNode& out) {
    const real* g = out.grad.data();                                    // same shape as x
    const real* py = out.value.data();                                  // y, the forward's output
    add_to_grad(x, [=](int64_t i) { return g[i] * (1 - py[i] * py[i]); });  // ∂tanh(x)/∂x = 1 − tanh²(x) = 1 − y²
  });
  return y;
}

Tensor exp(const Tensor& x) {
  Tensor y = Tensor::empty(x.shape());                                  // same shape as x, all written
  const int64_t n = x.numel();
  const real* px = x.data();
  real* py = y.data();
  for_each_index(n, [=](int64_t i) { py[i] = std::exp(px[i]); });              // y = eˣ

  record(y, "exp", {x}, [x](TensorNode& out) {
    const real* g = out.grad.data();                                    // same shape as x
    const real* py = out.value.data();                                  // y = eˣ, the forward's output
    add_to_grad(x, [=](int64_t i) { return g[i] * py[i]; });                 // ∂eˣ/∂x = eˣ = y
  });
  return y;
}

Tensor log(const Tensor& x) {
  Tensor y = Tensor::empty(x.shape());                                  // same shape as x, all written
  const int64_t n = x.numel();
  const real* px = x.data();
  real* py = y.data();
  for_each_index(n, [=](int64_t i) { py[i] = std::log(px[i]); });              // y = ln x (−inf at 0, NaN below)

  record(y, "log", {x}, [x](TensorNode& out) {
    const real* g = out.grad.data();                                    // same shape as x
    const real* px = x.data();
    add_to_grad(x, [=](int64_t i) { return g[i] / px[i]; });                 // ∂ln x/∂x = 1/x
  });
  return y;
}

Tensor elu_plus_one(const Tensor& x) {
  Tensor y = Tensor::empty(x.shape());                                  // same shape as x, all written
  const int64_t n = x.numel();
  const real* px = x.data();
  real* py = y.data();
  for_each_index(n, [=](int64_t i) { py[i] = px[i] > 0 ? px[i] + 1 : std::exp(px[i]); });  // y = x + 1, or eˣ

  record(y, "elu_plus_one", {x}, [x](TensorNode& out) {
    const real* g = out.grad.data();                                    // same shape as x
    const real* px = x.data();
    const real* py = out.value.data();                                  // y, which is eˣ where x ≤ 0
    add_to_grad(x, [=](int64_t i) { return g[i] * (px[i] > 0 ? real(1) : py[i]); });  // ∂y/∂x = 1, or eˣ = y
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
