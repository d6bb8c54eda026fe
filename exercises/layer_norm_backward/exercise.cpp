// Exercise layer_norm_backward (chapter autograd): the backward pass of layer normalization.
//
// Layer norm shifts each position's feature vector (one row of d numbers) to mean 0 and variance 1, then gives
// it a learned gain γ and shift β per feature (Ba, Kiros & Hinton 2016). Every sublayer of the Transformer ends
// in one. Its backward is the classic hard one: every x_j of a row moves every output of that row.
//
//   forward     μ = (1/d) Σ_j x_j                           the row's mean
//               σ² = (1/d) Σ_j (x_j − μ)²                    its variance (÷ d, as PyTorch)
//               rstd = 1 / √(σ² + ε)
//               x̂_i = (x_i − μ) · rstd
//               y_i = γ_i · x̂_i + β_i
//   backward    given g = ∂loss/∂y, find
//               ∂β_i = …   ∂γ_i = …                          β and γ are used by every row: sum over the rows
//               ∂x_j = Σ_i (∂loss/∂x̂_i) · ∂x̂_i/∂x_j         x_j moves x̂_i directly, through μ and through rstd:
//                 ∂μ/∂x_j = 1/d,   ∂σ²/∂x_j = (2/d)(x_j − μ),   ∂rstd/∂x_j = −½ (σ² + ε)^(−3/2) · ∂σ²/∂x_j
//               Put these together for ∂x̂_i/∂x_j, then do the sum over i; write it with x̂ and rstd.
//
// Shapes: x and g are [..., d]: rows = x.shape().rows(), d = x.shape().cols(), row r starts at
// x.data() + r * d. γ is [d]. Recompute μ and rstd of each row from x (the library saves them in the forward;
// recomputing keeps this signature small). Return ∂x shaped like x, ∂γ and ∂β of shape [d].
//
// Check:  tools/exercise.sh layer_norm_backward
//   check.cpp makes layer_norm an op whose backward is yours (record(), src/autograd/graph.h) and compares ∂x, ∂γ
//   and ∂β with central differences; one ✓ or ✗ per gradient, so you can do them one at a time.
#include "exercise.h"

namespace attnlab::exercises {

LayerNormGradients layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& g, real eps) {
  LayerNormGradients gradients{Tensor::zeros(x.shape()),              // ∂x     [..., d]
                               Tensor::zeros(gamma.shape()),          // ∂γ     [d]
                               Tensor::zeros(gamma.shape())};         // ∂β     [d]
  // TODO: for each row, recompute μ and rstd, then add into gradients.dbeta and gradients.dgamma and write that
  // row of gradients.dx.
  return gradients;
}

}  // namespace attnlab::exercises
