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
// The slow, obvious version would build it from ops — sub, mean, mul, add — with a graph node and a [B, T, d]
// temporary at every step. The fused kernel makes one pass for the statistics, one for y, and its backward
// recomputes x̂ from x and the saved μ, rstd (d numbers a row) instead of keeping a [B, T, d] copy of x̂.
// The row sums (μ, σ², mean(ĝ), mean(ĝ ⊙ x̂)) are row_math.h's vectorised sums, in a fixed packet order rather
// than left to right: the same bits wherever the row sits, equal to the plain loops to rounding.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "tensor/parallel.h"
#include "tensor/row_math.h"
#include "util/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, real eps) {
  const int64_t d = x.shape()[-1];                                      // features, normalized over
  const int64_t rows = x.shape().rows();                                // positions, e.g. B·T
  const Shape feature_shape{d};                                         // [d]
  if (gamma.shape() != feature_shape || beta.shape() != feature_shape) {
    throw Error("layer_norm: gamma and beta must have shape " + feature_shape.str() +
                " (one number per feature, the last axis of x " + x.shape().str() + "), but gamma has shape " +
                gamma.shape().str() + " and beta " + beta.shape().str());
  }

  Tensor y = Tensor::empty(x.shape());                                  // [..., d], same shape as x, all written
  std::vector<real> mean(static_cast<size_t>(rows));                    // [rows] μ of each row
  std::vector<real> rstd(static_cast<size_t>(rows));                    // [rows] 1/√(σ² + ε) of each row
  const real* pg = gamma.data();                                        // [d]
  const real* pb = beta.data();                                         // [d]
  const real* px = x.data();
  real* py = y.data();
  parallel_for(rows, worth_threads(rows * d), [=, &mean, &rstd](int64_t r) {   // rows are independent
    const real* xr = px + r * d;                                        // [d]
    real* yr = py + r * d;                                              // [d]
    const real mu = row_sum(xr, d) / static_cast<real>(d);              // μ = (1/d) Σ x_j
    for (int64_t j = 0; j < d; ++j) yr[j] = xr[j] - mu;                 // x − μ, in y's storage for now
    const real variance = row_dot(yr, yr, d) / static_cast<real>(d);    // σ² = (1/d) Σ (x_j − μ)², biased
    const real s = 1 / std::sqrt(variance + eps);                       // rstd
    for (int64_t j = 0; j < d; ++j) yr[j] = pg[j] * (yr[j] * s) + pb[j];  // y = γ ⊙ x̂ + β,  x̂ = (x − μ) · rstd
    mean[static_cast<size_t>(r)] = mu;
    rstd[static_cast<size_t>(r)] = s;
  });

  if (no_graph(y, "layer_norm")) return y;  // no graph under NoGradGuard (graph.h)
  record(y, "layer_norm", {x, gamma, beta},
         [x, gamma, beta, rows, d, mean = std::move(mean), rstd = std::move(rstd)](TensorNode& out) {
           // ∂x is written with = when it is x's first gradient (a buffer never zero-filled), added with +=
           // otherwise: 0 + t = t, without the pass that writes the zeros and the one that reads them back.
           const bool first = wants_grad(x) && !x.has_grad();
           real* gx = !wants_grad(x) ? nullptr : first ? x.grad_for_overwrite() : x.grad();  // [rows, d]
           real* ggamma = wants_grad(gamma) ? gamma.grad() : nullptr;   // [d]
           real* gbeta = wants_grad(beta) ? beta.grad() : nullptr;      // [d]
           const real* pg = gamma.data();                               // [d]
           // Rows in parallel. ∂x of a row needs only that row; ∂γ and ∂β sum over rows, so each fixed chunk of
           // `chunk` rows sums into its own partial [d], and the partials are added in chunk order afterwards:
           // the same bits for any thread count. (The obvious version: one loop over rows adding into ∂γ, ∂β.)
           constexpr int64_t chunk = 32;
           const int64_t chunks = (rows + chunk - 1) / chunk;
           std::vector<real> partial_gamma(static_cast<size_t>(chunks * d), real(0));  // [chunks, d]
           std::vector<real> partial_beta(static_cast<size_t>(chunks * d), real(0));   // [chunks, d]
           parallel_region(worth_threads(rows * d), [&] {               // (tensor/parallel.h)
             std::vector<real> x_hat(static_cast<size_t>(d));           // [d] x̂ of the current row
             std::vector<real> g_hat(static_cast<size_t>(d));           // [d] ĝ = g ⊙ γ of the current row
#pragma omp for schedule(static)
             for (int64_t c = 0; c < chunks; ++c) {
               real* pgamma = partial_gamma.data() + c * d;             // [d]
               real* pbeta = partial_beta.data() + c * d;               // [d]
               for (int64_t r = c * chunk; r < std::min(rows, (c + 1) * chunk); ++r) {
                 const real* xr = x.data() + r * d;                     // [d]
                 const real* g = out.grad.data() + r * d;               // ∂loss/∂y of this row, [d]
                 const real mu = mean[static_cast<size_t>(r)];
                 const real s = rstd[static_cast<size_t>(r)];
                 for (int64_t j = 0; j < d; ++j) {
                   x_hat[j] = (xr[j] - mu) * s;                         // x̂ = (x − μ) · rstd, as in forward
                   g_hat[j] = g[j] * pg[j];                             // ĝ = g ⊙ γ
                 }
                 for (int64_t j = 0; j < d; ++j) {                      // (a loop of its own: few enough pointers
                   pgamma[j] += g[j] * x_hat[j];                        // for the compiler to vectorise it)
                   pbeta[j] += g[j];                                    // ∂γ = Σ_rows g ⊙ x̂, ∂β = Σ_rows g
                 }
                 if (!gx) continue;
                 const real mean_g_hat = row_sum(g_hat.data(), d) / static_cast<real>(d);  // mean(ĝ)
                 const real mean_g_hat_x_hat =                                              // mean(ĝ ⊙ x̂)
                     row_dot(g_hat.data(), x_hat.data(), d) / static_cast<real>(d);
                 real* gxr = gx + r * d;                                // [d]
                 for (int64_t j = 0; j < d; ++j) {
                   const real term = s * (g_hat[j] - mean_g_hat - x_hat[j] * mean_g_hat_x_hat);  // ∂x = rstd · (ĝ
                   gxr[j] = first ? term : gxr[j] + term;               //   − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂))
                 }
               }
             }
           });
           for (int64_t c = 0; c < chunks; ++c) {                       // the chunks' sums, in order
             for (int64_t j = 0; j < d; ++j) {
               if (ggamma) ggamma[j] += partial_gamma[static_cast<size_t>(c * d + j)];
               if (gbeta) gbeta[j] += partial_beta[static_cast<size_t>(c * d + j)];
             }
           }
         });
  return y;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
