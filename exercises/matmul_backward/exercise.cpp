// Exercise matmul_backward (chapter autograd): the backward pass of the matrix product of a Linear layer.
//
// Every projection of the Transformer — W_Q, W_K, W_V, W_O, the two layers of the feed-forward block, the output
// layer — is y = x · Wᵀ (+ b). The engine writes it as matmul(x, W, false, /*transpose_b=*/true)
// (src/nn/linear.cpp): W is stored [d_out, d_in], as PyTorch's nn.Linear.weight, and used transposed. Here you
// write what that product pushes back to x and to W.
//
//   forward     y[r, o] = Σ_i x[r, i] · W[o, i]              y = x · Wᵀ,   one row r per position
//   backward    given g = ∂loss/∂y, find
//               ∂x[r, i] = Σ_o g[r, o] · ∂y[r, o]/∂x[r, i] = …     which numbers of W does x[r, i] meet?
//               ∂W[o, i] = Σ_r g[r, o] · ∂y[r, o]/∂W[o, i] = …     W is used by EVERY row r: sum over them
//               Then write each as a matrix product and check it by its shapes: ∂x must come out
//               [rows, d_in] and ∂W [d_out, d_in].
//
// Shapes: x [..., d_in]: its leading axes are all rows, rows = x.shape().rows(), row r starts at
// x.data() + r * d_in. W [d_out, d_in]: W[o, i] is W.data()[o * d_in + i]. g [..., d_out]: g[r, o] is
// g.data()[r * d_out + o]. Return ∂x shaped like x and ∂W shaped like W.
//
// Check:  tools/exercise.sh matmul_backward
//   check.cpp turns your function into an op with record(), as src/autograd/ops/matmul.cpp does, and compares
//   ∂x and ∂W with central differences (L(x + h) − L(x − h)) / 2h, number by number; one ✓ or ✗ for each.
#include "exercise.h"

namespace attnlab::exercises {

MatmulGradients matmul_backward(const Tensor& x, const Tensor& W, const Tensor& g) {
  MatmulGradients gradients{Tensor::zeros(x.shape()),                 // ∂x  [..., d_in]
                            Tensor::zeros(W.shape())};                // ∂W  [d_out, d_in]
  // TODO: for every row r, output o and input i, add into gradients.dx and gradients.dW.
  return gradients;
}

}  // namespace attnlab::exercises
