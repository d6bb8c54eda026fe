// answer.cpp — the project's answer to the layer_norm_backward exercise. Try exercise.cpp first: the check marks
// each of the three gradients ✓ or ✗, so you can get ∂β and ∂γ right before the hard one.
//
//   ∂β_i = Σ_rows g_i          ∂γ_i = Σ_rows g_i · x̂_i          (y_i = γ_i x̂_i + β_i, for every row)
//   ∂x: with ĝ = g ⊙ γ (= ∂loss/∂x̂) and ∂rstd/∂x_j = −rstd² · x̂_j / d,
//     ∂x̂_i/∂x_j = rstd (δ_ij − 1/d) + (x_i − μ) · ∂rstd/∂x_j = rstd (δ_ij − 1/d − x̂_i x̂_j / d)
//     ∂x_j = Σ_i ĝ_i ∂x̂_i/∂x_j = rstd · (ĝ_j − mean(ĝ) − x̂_j · mean(ĝ ⊙ x̂))      means over the row
// The library's fused version (it saves μ and rstd in the forward) is src/autograd/ops/layer_norm.cpp.
#include <cmath>
#include <vector>

#include "exercise.h"

namespace attnlab::exercises {

LayerNormGradients layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& g, real eps) {
  const int64_t rows = x.shape().rows(), d = x.shape().cols();
  LayerNormGradients gradients{Tensor::zeros(x.shape()), Tensor::zeros(gamma.shape()), Tensor::zeros(gamma.shape())};
  std::vector<real> x_hat(static_cast<size_t>(d)), g_hat(static_cast<size_t>(d));   // [d] each, for one row
  for (int64_t r = 0; r < rows; ++r) {
    const real* xr = x.data() + r * d;                               // [d]
    const real* gr = g.data() + r * d;                               // ∂loss/∂y of this row, [d]
    real mu = 0;                                                     // μ = (1/d) Σ x_j
    for (int64_t j = 0; j < d; ++j) mu += xr[j];
    mu /= static_cast<real>(d);
    real variance = 0;                                               // σ² = (1/d) Σ (x_j − μ)²
    for (int64_t j = 0; j < d; ++j) variance += (xr[j] - mu) * (xr[j] - mu);
    variance /= static_cast<real>(d);
    const real rstd = 1 / std::sqrt(variance + eps);

    real mean_g_hat = 0, mean_g_hat_x_hat = 0;                       // mean(ĝ), mean(ĝ ⊙ x̂)
    for (int64_t j = 0; j < d; ++j) {
      x_hat[j] = (xr[j] - mu) * rstd;                                // x̂ = (x − μ) · rstd
      g_hat[j] = gr[j] * gamma.data()[j];                            // ĝ = g ⊙ γ
      gradients.dbeta.data()[j] += gr[j];                            // ∂β = Σ_rows g
      gradients.dgamma.data()[j] += gr[j] * x_hat[j];                // ∂γ = Σ_rows g ⊙ x̂
      mean_g_hat += g_hat[j] / static_cast<real>(d);
      mean_g_hat_x_hat += g_hat[j] * x_hat[j] / static_cast<real>(d);
    }
    real* dxr = gradients.dx.data() + r * d;                         // [d]
    for (int64_t j = 0; j < d; ++j) dxr[j] = rstd * (g_hat[j] - mean_g_hat - x_hat[j] * mean_g_hat_x_hat);
  }
  return gradients;
}

}  // namespace attnlab::exercises
