// answer.cpp — the project's answer to the matmul_backward exercise. Try exercise.cpp first: the check marks ∂x
// and ∂W ✓ or ✗, and names the usual mistakes (transposed weights, a missing sum over the rows).
//
//   y[r, o] = Σ_i x[r, i] · W[o, i], so x[r, i] meets W[o, i] in every output o of its row, and W[o, i] meets
//   x[r, i] in every row r:
//     ∂x[r, i] = Σ_o g[r, o] · W[o, i]      ∂x = g · W     [rows, d_out] · [d_out, d_in] → [rows, d_in]
//     ∂W[o, i] = Σ_r g[r, o] · x[r, i]      ∂W = gᵀ · x    [d_out, rows] · [rows, d_in]  → [d_out, d_in]
// The library's version is the row "C = A · Bᵀ" of the table that opens src/autograd/ops/matmul.cpp (∂A = G · B,
// ∂B = Gᵀ · A), done as two matrix products; for a Linear layer it sees x [B, T, d_in] as one [B·T, d_in]
// matrix, so ∂W's inner sum runs over all B·T rows at once.
#include "exercise.h"

namespace attnlab::exercises {

MatmulGradients matmul_backward(const Tensor& x, const Tensor& W, const Tensor& g) {
  const int64_t rows = x.shape().rows(), d_out = W.shape()[0], d_in = W.shape()[1];
  MatmulGradients gradients{Tensor::zeros(x.shape()), Tensor::zeros(W.shape())};   // ∂x [..., d_in], ∂W [d_out, d_in]
  const real* px = x.data();                                         // [rows, d_in]
  const real* pW = W.data();                                         // [d_out, d_in]
  real* dx = gradients.dx.data();                                    // [rows, d_in]
  real* dW = gradients.dW.data();                                    // [d_out, d_in]
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < d_out; ++o) {
      const real g_ro = g.data()[r * d_out + o];                     // g[r, o]
      for (int64_t i = 0; i < d_in; ++i) {
        dx[r * d_in + i] += g_ro * pW[o * d_in + i];                 // ∂x[r, i] += g[r, o] · W[o, i]
        dW[o * d_in + i] += g_ro * px[r * d_in + i];                 // ∂W[o, i] += g[r, o] · x[r, i], every row
      }
    }
  }
  return gradients;
}

}  // namespace attnlab::exercises
