// Exercise activation_backward (chapter autograd): the backward passes of ReLU, GELU and tanh.
//
// An activation works number by number, y_i = f(x_i), so each x_i moves its own y_i only and the chain rule is
// one product per number:  ∂x_i = g_i · f'(x_i),  g = ∂loss/∂y.  What there is to get right is f'. The paper's
// feed-forward block is W_2 · relu(W_1 x); BERT and GPT use GELU instead; tanh is here for its derivative's
// classic slip.
//
//   relu   y = max(x, 0)                          f'(x) = …   (and at the kink x = 0? the library, like PyTorch,
//                                                             takes 0 there: x = 0 passes no gradient)
//   gelu   y = x · Φ(x),  Φ(x) = ½ (1 + erf(x / √2))   the standard normal CDF: the exact erf form, PyTorch's
//                                                      nn.GELU() default (not the tanh approximation)
//                                                 f'(x) = …   a product x · Φ(x): two terms. Φ'(x) is the normal
//                                                             density φ(x); work it out from d/du erf(u) =
//                                                             (2/√π) e^(−u²), keeping every constant
//   tanh   y = tanh(x)                            f'(x) = …   write it with y: you are given y, not x
//
// Shapes: every tensor here is [...], any shape; x (or y) and g have the same one, and so does ∂x. The numbers
// are x.data()[i], i < x.numel(); the shape does not matter to an elementwise op. Include <cmath> for std::erf,
// std::exp, std::sqrt; std::numbers::pi (<numbers>) is π.
//
// Check:  tools/exercise.sh activation_backward
//   check.cpp turns each of your functions into an op with record(), as src/autograd/ops/activations.cpp does,
//   and compares the gradient it gives with central differences (L(x + h) − L(x − h)) / 2h, number by number —
//   ReLU first, then GELU, then tanh; and ReLU at x = 0 exactly with the library's own backward.
#include "exercise.h"

namespace attnlab::exercises {

Tensor relu_backward(const Tensor& x, const Tensor& g) {
  Tensor dx = Tensor::zeros(x.shape());                              // [...], ∂loss/∂x
  // TODO: dx_i = g_i · f'(x_i) for ReLU.
  return dx;
}

Tensor gelu_backward(const Tensor& x, const Tensor& g) {
  Tensor dx = Tensor::zeros(x.shape());                              // [...], ∂loss/∂x
  // TODO: dx_i = g_i · f'(x_i) for GELU.
  return dx;
}

Tensor tanh_backward(const Tensor& y, const Tensor& g) {
  Tensor dx = Tensor::zeros(y.shape());                              // [...], ∂loss/∂x
  // TODO: dx_i = g_i · f'(x_i) for tanh, from y_i = tanh(x_i).
  return dx;
}

}  // namespace attnlab::exercises
