// layer_norm.h — the arithmetic of layer_norm (ops/layer_norm.cpp) that the op and its kernel share.
//
// The op layer_norm (autograd/ops.h) is its forward and a backward that goes one row after the other; the kernel
// fused_layer_norm (kernels/layer_norm.cpp) is the same forward and a backward that does the rows in parallel.
// Both are built from these pieces, so the equations are written once, in ops/layer_norm.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// What backward needs of each row, kept by the backward closure (which must not keep y: a node holding itself
// would never be freed).
struct LayerNormStatistics {
  std::vector<real> mean;   // [rows] μ of each row
  std::vector<real> rstd;   // [rows] 1/√(σ² + ε) of each row
};
// y = γ ⊙ x̂ + β for every row of x [..., d] → y [..., d], without a graph node; fills `stats`.
// Throws attnlab::Error when gamma or beta is not [d].
Tensor layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, real eps,
                          LayerNormStatistics& stats);

// One row: y = γ ⊙ x̂ + β, x̂ = (x − μ) · rstd; writes y [d] and returns the row's μ and rstd.
void layer_norm_row_forward(const real* x, const real* gamma, const real* beta, int64_t d, real eps, real* y,
                            real& mean, real& rstd);
// One row's backward, with g = ∂loss/∂y of the row: ∂γ += g ⊙ x̂ and ∂β += g into sum_gamma, sum_beta [d];
// ∂x = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂)), ĝ = g ⊙ γ, written into dx [d] (nothing when dx is null).
// x_hat and g_hat are [d] scratch.
void layer_norm_row_backward(const real* x, const real* g, const real* gamma, int64_t d, real mean, real rstd,
                             real* sum_gamma, real* sum_beta, real* dx, real* x_hat, real* g_hat);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
