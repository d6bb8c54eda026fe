// Exercise softmax_backward (chapter autograd): the backward pass of softmax.
//
// Softmax turns a row of scores into a probability distribution; attention applies it to every row of
// Q Kᵀ / √d_k. Every op of the engine computes its output and records how to push a gradient back through it
// (src/autograd/graph.h, record()). Here you write softmax's push-back.
//
//   forward     y_i = e^(x_i) / Σ_k e^(x_k)                  one row of d numbers at a time (the last axis)
//   backward    given g = ∂loss/∂y, find ∂loss/∂x:
//               ∂y_i/∂x_j = y_i (δ_ij − y_j)                 (the quotient rule; δ_ij is 1 when i = j, else 0)
//               ∂x_j = Σ_i g_i · ∂y_i/∂x_j = …               work this sum out on paper before you code it
//
// Shapes: y and g are [..., d]: any leading axes, flattened into rows = y.shape().rows(); each row of
// d = y.shape().cols() numbers is one softmax, and row r starts at y.data() + r * d. Return ∂loss/∂x, shaped
// like y. Notice that x is not an argument: softmax's backward needs only its output.
//
// Check:  tools/exercise.sh softmax_backward
//   check.cpp turns your function into an op with record(), as src/autograd/ops/softmax.cpp does, and compares
//   the gradient it gives with central differences (L(x + h) − L(x − h)) / 2h, number by number.
#include "exercise.h"

namespace attnlab::exercises {

Tensor softmax_backward(const Tensor& y, const Tensor& g) {
  Tensor dx = Tensor::zeros(y.shape());                              // [..., d], ∂loss/∂x
  // TODO: for each row, write ∂x_j into dx.data() from that row's y and g.
  return dx;
}

}  // namespace attnlab::exercises
