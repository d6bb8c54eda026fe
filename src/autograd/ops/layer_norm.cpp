// layer_norm.cpp — layer normalization over the last axis (Ba, Kiros & Hinton 2016), fused forward and backward.
//
// Each position's feature vector (one row of d numbers) is shifted to mean 0 and scaled to variance 1, then
// given a learned scale γ and shift β per feature. It keeps the activations of a deep stack in a steady range.
//
//   forward      μ = (1/d) Σ_j x_j                        the row's mean
//                σ² = (1/d) Σ_j (x_j − μ)²                 biased variance (÷ d, not d − 1), as PyTorch
//                rstd = 1 / √(σ² + ε)                      saved per row, with μ, for backward
//                x̂_i = (x_i − μ) · rstd
//                y_i = γ_i · x̂_i + β_i
//
//   backward     with g = ∂loss/∂y and ĝ = g ⊙ γ (= ∂loss/∂x̂):
//                ∂x  = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂))      means over the row's d numbers
//                ∂γ  = Σ_rows g ⊙ x̂
//                ∂β  = Σ_rows g
//
// Derivation of ∂x (one row; every x_j moves x̂_i directly and through μ and rstd):
//   ∂μ/∂x_j    = 1/d
//   ∂σ²/∂x_j   = (2/d)(x_j − μ)                         (the term through μ is −(2/d) Σ_i (x_i − μ) = 0)
//   ∂rstd/∂x_j = −½ (σ² + ε)^(−3/2) · (2/d)(x_j − μ) = −rstd² · x̂_j / d
//   ∂x̂_i/∂x_j  = rstd (δ_ij − 1/d) + (x_i − μ) · ∂rstd/∂x_j = rstd (δ_ij − 1/d − x̂_i x̂_j / d)
//   ∂x_j       = Σ_i ĝ_i ∂x̂_i/∂x_j = rstd (ĝ_j − (1/d) Σ_i ĝ_i − x̂_j (1/d) Σ_i ĝ_i x̂_i)
// This is exact for any ε (nowhere does it assume Σ x̂² = d).
//
// One op, not a chain of ops: the chain — sub, mean, mul, add — would make a graph node and a [B, T, d]
// temporary at every step. This op makes one pass for the statistics, one for y, and its backward recomputes x̂
// from x and the saved μ, rstd (d numbers a row) instead of keeping a [B, T, d] copy of x̂. Backward goes one row
// after the other, adding into ∂x, ∂γ and ∂β; the kernel fused_layer_norm (kernels/layer_norm.cpp) runs the same
// row arithmetic with the rows in parallel. The row sums (μ, σ², mean(ĝ), mean(ĝ ⊙ x̂)) are row_math.h's
// vectorised sums, in a fixed packet order rather than left to right: the same bits wherever the row sits.
#include "autograd/ops/layer_norm.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/ops/add_to_grad.h"
#include "tensor/parallel.h"
#include "tensor/row_math.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// ---- Forward, one row of d features: y = γ ⊙ x̂ + β,  x̂ = (x − μ) · rstd,  rstd = 1/√(σ² + ε) ----
// Writes y and returns what backward needs of the row: μ and rstd.
void layer_norm_row_forward(const real* x, const real* gamma, const real* beta, int64_t d, real eps, real* y,
                            real& mean, real& rstd) {
  const real mu = row_sum(x, d) / static_cast<real>(d);                 // μ = (1/d) Σ x_j
  for (int64_t j = 0; j < d; ++j) y[j] = x[j] - mu;                     // x − μ, in y's storage for now
  const real variance = row_dot(y, y, d) / static_cast<real>(d);        // σ² = (1/d) Σ (x_j − μ)², biased
  const real s = 1 / std::sqrt(variance + eps);                         // rstd
  for (int64_t j = 0; j < d; ++j) y[j] = gamma[j] * (y[j] * s) + beta[j];   // y = γ ⊙ x̂ + β
  mean = mu;
  rstd = s;
}

// ---- Backward, one row, with g = ∂loss/∂y of the row (the derivation above) ----
//   ∂γ += g ⊙ x̂      ∂β += g      ∂x = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂)),  ĝ = g ⊙ γ
// ∂γ and ∂β are added into sum_gamma, sum_beta; ∂x is written into dx (nothing when dx is null); x_hat and
// g_hat are [d] scratch.
void layer_norm_row_backward(const real* x, const real* g, const real* gamma, int64_t d, real mean, real rstd,
                             real* sum_gamma, real* sum_beta, real* dx, real* x_hat, real* g_hat) {
  for (int64_t j = 0; j < d; ++j) {
    x_hat[j] = (x[j] - mean) * rstd;                                    // x̂ = (x − μ) · rstd, as in forward
    g_hat[j] = g[j] * gamma[j];                                         // ĝ = g ⊙ γ
  }
  for (int64_t j = 0; j < d; ++j) {                                     // (a loop of its own: few enough pointers
    sum_gamma[j] += g[j] * x_hat[j];                                    // for the compiler to vectorise it)
    sum_beta[j] += g[j];                                                // ∂γ = Σ_rows g ⊙ x̂, ∂β = Σ_rows g
  }
  if (!dx) return;
  const real mean_g_hat = row_sum(g_hat, d) / static_cast<real>(d);                    // mean(ĝ)
  const real mean_g_hat_x_hat = row_dot(g_hat, x_hat, d) / static_cast<real>(d);       // mean(ĝ ⊙ x̂)
  for (int64_t j = 0; j < d; ++j) {
    dx[j] = rstd * (g_hat[j] - mean_g_hat - x_hat[j] * mean_g_hat_x_hat);   // ∂x
  }
}

Tensor layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, real eps,
                          LayerNormStatistics& stats) {
  const int64_t d = x.shape()[-1];                                      // features, normalized over
  const int64_t rows = x.shape().rows();                                // positions, e.g. B·T
  const Shape feature_shape{d};                                         // [d]
  if (gamma.shape() != feature_shape || beta.shape() != feature_shape) {
    throw Error("layer_norm: gamma and beta must have shape " + feature_shape.str() +
                " (one number per feature, the last axis of x " + x.shape().str() + "), but gamma has shape " +
                gamma.shape().str() + " and beta " + beta.shape().str());
  }
  Tensor y = Tensor::empty(x.shape());                                  // [..., d], all written
  stats.mean.assign(static_cast<size_t>(rows), 0);                      // [rows]
  stats.rstd.assign(static_cast<size_t>(rows), 0);                      // [rows]
  const real *pg = gamma.data(), *pb = beta.data(), *px = x.data();     // [d], [d], [rows, d]
  real *py = y.data(), *mean = stats.mean.data(), *rstd = stats.rstd.data();   // [rows, d], [rows], [rows]
  parallel_for(rows, worth_threads(rows * d), [=](int64_t r) {          // rows are independent
    layer_norm_row_forward(px + r * d, pg, pb, d, eps, py + r * d, mean[r], rstd[r]);
  });
  return y;
}

Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, real eps) {
  LayerNormStatistics f;
  Tensor y = layer_norm_forward(x, gamma, beta, eps, f);                // [..., d]
  const int64_t d = x.shape()[-1], rows = x.shape().rows();
  record(y, "layer_norm", {x, gamma, beta}, [x, gamma, beta, rows, d, f = std::move(f)](TensorNode& out) {
    real* gx = wants_grad(x) ? x.grad() : nullptr;                      // [rows, d]
    std::vector<real> sum_gamma(static_cast<size_t>(d), 0);             // [d] Σ_rows g ⊙ x̂
    std::vector<real> sum_beta(static_cast<size_t>(d), 0);              // [d] Σ_rows g
    std::vector<real> dx(static_cast<size_t>(d));                       // [d] ∂x of one row
    std::vector<real> x_hat(static_cast<size_t>(d)), g_hat(static_cast<size_t>(d));   // [d] scratch
    for (int64_t r = 0; r < rows; ++r) {
      layer_norm_row_backward(x.data() + r * d, out.grad.data() + r * d, gamma.data(), d,
                              f.mean[static_cast<size_t>(r)], f.rstd[static_cast<size_t>(r)], sum_gamma.data(),
                              sum_beta.data(), gx ? dx.data() : nullptr, x_hat.data(), g_hat.data());
      if (gx) for (int64_t j = 0; j < d; ++j) gx[r * d + j] += dx[static_cast<size_t>(j)];   // ∂x += of the row
    }
    if (wants_grad(gamma)) add_to_grad(gamma, [g = sum_gamma.data()](int64_t j) { return g[j]; });   // ∂γ
    if (wants_grad(beta)) add_to_grad(beta, [g = sum_beta.data()](int64_t j) { return g[j]; });      // ∂β
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
