// Exercise dropout_backward (chapter autograd): the backward pass of (inverted) dropout.
//
// While training, dropout zeroes each number with probability p, and scales the survivors by 1/(1 − p), so that
// every output keeps its input's expected value and inference needs no change at all (Srivastava et al. 2014; the
// Transformer drops with p = 0.1 after every sub-layer). The forward drew the mask; here you push g back through it.
//
//   forward     kept_i = 0 with probability p, else 1              (drawn once, in the forward)
//               y_i = x_i · kept_i / (1 − p)
//               E[y_i] = (1 − p) · x_i / (1 − p) + p · 0 = x_i
//   backward    given g = ∂loss/∂y, find ∂loss/∂x:   ∂y_i/∂x_i = …   (and ∂y_i/∂x_j = 0 for j ≠ i)
//
// Shapes: kept and g have the same shape [...], any rank; walk their numbers i < g.numel() with g.data()[i] and
// kept.data()[i] (each 0 or 1). Return ∂x shaped like g.
// (The library keeps no mask: src/autograd/ops/dropout.cpp saves one random key and recomputes, in backward, the
// mask values m_i = kept_i / (1 − p) — the scale folded in. Here you get kept_i and p, and do the scaling yourself.)
//
// Check:  tools/exercise.sh dropout_backward
//   check.cpp runs the library's dropout(x, p, gen) forward and backward with the same g, gives you the mask that
//   forward drew, and compares its ∂x with yours, number by number.
#include "exercise.h"

namespace attnlab::exercises {

Tensor dropout_backward(const Tensor& kept, const Tensor& g, real p) {
  Tensor dx = Tensor::zeros(g.shape());                                      // [...], ∂loss/∂x
  // TODO: write ∂x_i into dx.data()[i] from g_i, kept_i and p.
  return dx;
}

}  // namespace attnlab::exercises
