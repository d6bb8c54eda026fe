// layer_norm.cpp — fused_layer_norm: the op layer_norm (autograd/ops/layer_norm.cpp) with its rows in parallel.
//
// The chain it replaces is one op already: layer_norm, whose backward goes one row after the other, adding each
// row's ∂x into x's gradient buffer and its ∂γ, ∂β into running sums. Forward and the row arithmetic are the op's
// own (autograd/ops/layer_norm.h); what this kernel adds is only how the rows are scheduled and where they write:
//   - rows in parallel: ∂x of a row needs only that row. ∂γ and ∂β sum over rows, so each fixed chunk of 32 rows
//     sums into its own partial [d], and the partials are added in chunk order afterwards — the same bits for any
//     thread count (the op's one running sum is the same numbers to rounding);
//   - ∂x written straight into x's gradient buffer when it is x's first gradient (kernels/gradient_buffer.h),
//     instead of into a row of scratch that is then added to a zero-filled buffer.
// tests/kernels/test_fused_layer_norm.cpp checks the two against each other, forward and backward, and the kernel
// against itself at 1 and 2 threads.
#include "autograd/ops/layer_norm.h"

#include <algorithm>
#include <vector>

#include "autograd/ops.h"
#include "autograd/ops/add_to_grad.h"
#include "kernels/gradient_buffer.h"
#include "kernels/kernels.h"
#include "tensor/parallel.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// ∂γ and ∂β from the chunks' partial sums [chunks, d], added in chunk order.
void add_partials(const Tensor& p, const std::vector<real>& partials, int64_t chunks, int64_t d) {
  if (!wants_grad(p)) return;
  add_to_grad(p, [=, sums = partials.data()](int64_t j) {
    real total = 0;
    for (int64_t c = 0; c < chunks; ++c) total += sums[c * d + j];
    return total;
  });
}

}  // namespace

Tensor fused_layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, real eps) {
  LayerNormStatistics f;
  Tensor y = layer_norm_forward(x, gamma, beta, eps, f);                // [..., d]
  const int64_t d = x.shape()[-1], rows = x.shape().rows();
  record(y, "fused_layer_norm", {x, gamma, beta}, [x, gamma, beta, rows, d, f = std::move(f)](TensorNode& out) {
    bool first = false;
    real* gx = gradient_buffer(x, first);                               // [rows, d], or null
    constexpr int64_t chunk = 32;                                       // rows per partial sum
    const int64_t chunks = (rows + chunk - 1) / chunk;
    std::vector<real> partial_gamma(static_cast<size_t>(chunks * d), real(0));   // [chunks, d]
    std::vector<real> partial_beta(static_cast<size_t>(chunks * d), real(0));    // [chunks, d]
    parallel_region(worth_threads(rows * d), [&] {                      // (tensor/parallel.h)
      std::vector<real> dx(static_cast<size_t>(d)), x_hat(static_cast<size_t>(d)), g_hat(static_cast<size_t>(d));
#pragma omp for schedule(static)
      for (int64_t c = 0; c < chunks; ++c) {
        for (int64_t r = c * chunk; r < std::min(rows, (c + 1) * chunk); ++r) {
          real* row_dx = !gx ? nullptr : first ? gx + r * d : dx.data();  // [d]: straight into a fresh buffer
          layer_norm_row_backward(x.data() + r * d, out.grad.data() + r * d, gamma.data(), d,
                                  f.mean[static_cast<size_t>(r)], f.rstd[static_cast<size_t>(r)],
                                  partial_gamma.data() + c * d, partial_beta.data() + c * d, row_dx, x_hat.data(),
                                  g_hat.data());
          if (gx && !first) for (int64_t j = 0; j < d; ++j) gx[r * d + j] += dx[static_cast<size_t>(j)];
        }
      }
    });
    add_partials(gamma, partial_gamma, chunks, d);                      // ∂γ = Σ_chunks Σ_rows g ⊙ x̂
    add_partials(beta, partial_beta, chunks, d);                        // ∂β = Σ_chunks Σ_rows g
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
