// answer.cpp — the project's answer to the activation_backward exercise. Try exercise.cpp first: the check names
// the usual slips (a missing product-rule term, a dropped constant, 1 − y for 1 − y²).
//
//   relu   f'(x) = [x > 0]                  1 for x > 0, 0 for x < 0, and 0 at the kink (as PyTorch)
//   gelu   f'(x) = Φ(x) + x · φ(x)          product rule; φ(x) = Φ'(x) = ½ · (2/√π) e^(−x²/2) · (1/√2)
//                                           = e^(−x²/2) / √(2π), the standard normal density
//   tanh   f'(x) = 1 − tanh²(x) = 1 − y²    so backward needs only the output y
// The library's versions, the same formulas in parallel loops, are the backward functions of relu, gelu and tanh
// in src/autograd/ops/activations.cpp.
#include <cmath>
#include <numbers>

#include "exercise.h"

namespace attnlab::exercises {

Tensor relu_backward(const Tensor& x, const Tensor& g) {
  Tensor dx = Tensor::zeros(x.shape());                              // [...], ∂loss/∂x
  for (int64_t i = 0; i < x.numel(); ++i) {
    dx.data()[i] = x.data()[i] > 0 ? g.data()[i] : 0;                // ∂x = g · [x > 0]
  }
  return dx;
}

Tensor gelu_backward(const Tensor& x, const Tensor& g) {
  const real inv_sqrt2 = 1 / std::sqrt(real(2));                     // 1/√2
  const real inv_sqrt_2pi = 1 / std::sqrt(2 * std::numbers::pi_v<real>);   // 1/√(2π)
  Tensor dx = Tensor::zeros(x.shape());                              // [...], ∂loss/∂x
  for (int64_t i = 0; i < x.numel(); ++i) {
    const real xi = x.data()[i];
    const real cdf = real(0.5) * (1 + std::erf(xi * inv_sqrt2));     // Φ(x)
    const real pdf = std::exp(-xi * xi / 2) * inv_sqrt_2pi;          // φ(x) = Φ'(x)
    dx.data()[i] = g.data()[i] * (cdf + xi * pdf);                   // ∂(x · Φ(x))/∂x = Φ(x) + x · φ(x)
  }
  return dx;
}

Tensor tanh_backward(const Tensor& y, const Tensor& g) {
  Tensor dx = Tensor::zeros(y.shape());                              // [...], ∂loss/∂x
  for (int64_t i = 0; i < y.numel(); ++i) {
    const real yi = y.data()[i];                                     // tanh(x_i)
    dx.data()[i] = g.data()[i] * (1 - yi * yi);                      // ∂tanh(x)/∂x = 1 − tanh²(x) = 1 − y²
  }
  return dx;
}

}  // namespace attnlab::exercises
