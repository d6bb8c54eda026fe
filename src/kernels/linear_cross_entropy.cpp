// linear_cross_entropy.cpp — the output layer and the training loss as one op (kernels chapter).
//
// Replaces the chain   logits = matmul(h, W, false, /*transpose_b=*/true)      [..., V]
//                      loss   = cross_entropy(logits, targets, ε, pad)         [1]
// (src/model/transformer.cpp runs that chain under model.path: paper). What it saves: the [N, V] logits
// and their gradient are never held — for the base benchmark model 2 × 64 MB (docs/guide/performance.md: training
// peak RSS 712 → 594 MiB when this op came in). tests/kernels/test_fused_output_loss.cpp checks loss and gradients
// against the chain.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "autograd/graph.h"
#include "kernels/gradient_buffer.h"
#include "kernels/kernels.h"
#include "tensor/parallel.h"
#include "tensor/product/product.h"
#include "tensor/row_math.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// ---- One row of the chunk: the loss from the row's logits z [V], and ∂z in place of z ----
//   loss = (1 − ε) · (lse − z_t) + ε · (lse − mean(z)),   lse = log Σ_c e^(z_c)
//   ∂z_c = (p_c − q_c) / N,   p = softmax(z),   q_c = ε/V + (1 − ε) · [c = t]
// An ignored target (padding) has no loss and no gradient: the row becomes zeros.
real loss_and_logit_gradient(real* row, int64_t V, int32_t t, int32_t ignore_id, real epsilon, int64_t kept) {
  if (t == ignore_id) {
    std::fill(row, row + V, real(0));                                   // padding: no loss, no gradient
    return 0;
  }
  const real m = row_max(row, V);
  const real sum_z = row_sum(row, V);                                   // Σ_c z_c
  const real z_t = row[t];
  const real lse = m + std::log(exp_shifted(row, m, V, row));            // row now holds e^(z_c − m)
  const real loss = (1 - epsilon) * (lse - z_t) + epsilon * (lse - sum_z / static_cast<real>(V));
  const real to_p = std::exp(m - lse);                                  // e^(z_c − m) · e^(m − lse) = p_c
  const real over_n = real(1) / static_cast<real>(kept), smooth = epsilon / static_cast<real>(V);
  for (int64_t c = 0; c < V; ++c) row[c] = (row[c] * to_p - smooth) * over_n;  // (p_c − ε/V) / N
  row[t] -= (1 - epsilon) * over_n;                                     // q_t = ε/V + (1 − ε)
  return loss;
}

// N, the positions whose target is not ignore_id; throws attnlab::Error naming a target outside [0, V).
int64_t count_kept_targets(const TokenIds& targets, int64_t V, int32_t ignore_id) {
  int64_t kept = 0;
  for (size_t r = 0; r < targets.values.size(); ++r) {
    const int32_t t = targets.values[r];
    if (t != ignore_id && (t < 0 || t >= V)) {
      throw Error("linear_cross_entropy: target " + std::to_string(t) + " at position " +
                  targets.shape.index_of(static_cast<int64_t>(r)) + " is outside the vocabulary [0, " +
                  std::to_string(V) + ")");
    }
    kept += t != ignore_id;
  }
  return kept;
}

}  // namespace

// ---- The output layer and the loss as one op: linear_cross_entropy(h, W, targets) ----
//
// Why. The logits z = h · Wᵀ are the largest tensor of a training step — [N, V], for the base benchmark model
// 2048 positions × 8000 words = 64 MB — and their gradient is as large again, yet all they are for is one
// number, the loss. This op never holds them. It walks the positions in chunks of a few hundred rows, and for
// each chunk:
//     z_c   = h_c · Wᵀ                          the chunk's logits, [rows, V], in scratch memory
//     loss_i  as in cross_entropy above         one number per row
//     ∂z_c  = (p − q) / N                       the loss's gradient at g = 1 (the formula above)
//     ∂h_c  = ∂z_c · W,   ∂W += ∂z_cᵀ · h_c     the output layer's backward, done right away
// and forgets z_c. It keeps ∂h [N, d] and ∂W [V, d] — small — and backward only multiplies them by g (which is
// 1 unless the loss was scaled, e.g. for gradient accumulation):  ∂h += g · ∂h_saved,  ∂W += g · ∂W_saved.
// The gradient work is done in forward only when h or W wants a gradient (not in validation).
// The reference is the two ops it replaces, matmul(h, W, false, true) then cross_entropy(·);
// tests/autograd/test_ops_loss_misc.cpp checks that loss and gradients agree to float rounding.
Tensor linear_cross_entropy(const Tensor& h, const Tensor& weight, const TokenIds& targets, real label_smoothing,
                            int32_t ignore_id, Gemm gemm, Precision precision) {
  if (h.rank() < 2 || weight.rank() != 2 || h.size(-1) != weight.size(1)) {
    throw Error("linear_cross_entropy: h " + h.shape().str() + " and weight " + weight.shape().str() +
                " do not fit: h must be [..., d] and the weight [V, d]");
  }
  const int64_t d = weight.size(1), V = weight.size(0), rows = h.numel() / d;
  std::vector<int64_t> logits_sizes = h.shape().sizes();
  logits_sizes.back() = V;
  const Shape logits_shape(logits_sizes);                              // [..., V], never made
  if (!(label_smoothing >= 0 && label_smoothing < 1)) {                 // also refuses NaN
    throw Error("linear_cross_entropy: label_smoothing must be in [0, 1), got " + std::to_string(label_smoothing));
  }
  if (targets.shape != Shape(std::vector<int64_t>(logits_sizes.begin(), logits_sizes.end() - 1)) ||
      static_cast<int64_t>(targets.values.size()) != rows) {
    throw Error("linear_cross_entropy: targets must have h's shape without its last axis, but have shape " +
                targets.shape.str() + " for h " + h.shape().str());
  }
  const int32_t* ids = targets.values.data();
  const int64_t kept = count_kept_targets(targets, V, ignore_id);       // N: positions whose target is not ignored
  const real epsilon = label_smoothing;
  const bool h_grad = grad_enabled() && wants_grad(h), w_grad = grad_enabled() && wants_grad(weight);
  // Tensors, not plain vectors, so that their memory comes from and goes back to the pool (tensor/storage.h):
  // a warm training step asks the system for none.
  Tensor dh = h_grad ? Tensor::zeros({rows, d}) : Tensor();             // [rows, d] ∂loss/∂h at g = 1
  Tensor dw = w_grad ? Tensor::zeros({V, d}) : Tensor();                // [V, d]    ∂loss/∂W at g = 1
  std::vector<real> row_loss(static_cast<size_t>(rows), real(0));       // [rows]: loss_i, 0 where ignored

  // Rows per chunk: about 4 M logits (16 MB of floats; the base benchmark model's 2048 positions in 4 chunks of
  // 524). Each chunk packs all of W for z_c = h_c · Wᵀ (tensor/product/packed_product.cpp), so fewer, taller chunks pack it
  // fewer times: on the base model this op took 75–79 ms a step at 1 M logits a chunk, 68 at 2 M, 65 at 4 M
  // (2 threads, `attnlab bench --profile`).
  const int64_t chunk = std::max<int64_t>(16, (int64_t(1) << 22) / std::max<int64_t>(V, 1));
  Tensor z = Tensor::empty({std::max<int64_t>(1, std::min(chunk, rows)), V});  // [chunk, V] scratch logits
  for (int64_t first = 0; first < rows; first += chunk) {
    const int64_t n = std::min(chunk, rows - first);
    MatrixMap Z(z.data(), n, V);                                        // z_c [n, V]
    Z.setZero();
    ConstMatrixMap H(h.data() + first * d, n, d);                       // h_c [n, d]
    add_product(Z, H, false, ConstMatrixMap(weight.data(), V, d), true, gemm, precision);  // z_c = h_c · Wᵀ
#pragma omp parallel for schedule(static) if (worth_threads(n * V))
    for (int64_t i = 0; i < n; ++i) {                                   // rows are independent
      row_loss[static_cast<size_t>(first + i)] =
          loss_and_logit_gradient(z.data() + i * V, V, ids[first + i], ignore_id, epsilon, kept);
    }
    if (h_grad) {                                                       // ∂h_c = ∂z_c · W   [n, d]
      add_product(MatrixMap(dh.data() + first * d, n, d), ConstMatrixMap(z.data(), n, V), false,
                  ConstMatrixMap(weight.data(), V, d), false, gemm, precision);
    }
    if (w_grad) {                                                       // ∂W += ∂z_cᵀ · h_c   [V, d]
      add_product(MatrixMap(dw.data(), V, d), ConstMatrixMap(z.data(), n, V), true, H, false, gemm, precision);
    }
  }
  real total = 0;                                                       // Σ_i loss_i, in row order
  for (int64_t r = 0; r < rows; ++r) total += row_loss[static_cast<size_t>(r)];
  Tensor y = Tensor::zeros({1});                                        // [1]
  y.data()[0] = kept > 0 ? total / static_cast<real>(kept) : real(0);

  record(y, "linear_cross_entropy", {h, weight},
         [h, weight, dh, dw](TensorNode& out) {
           const real g = out.grad[0];                                  // ∂L/∂loss
           // ∂x += g · ∂x_saved for x = h and W, on every thread; the first gradient is written, not added
           // (kernels/gradient_buffer.h).
           for (const auto& [x, saved_gradient] : {std::pair{h, dh}, std::pair{weight, dw}}) {
             bool first = false;
             real* gx = saved_gradient.defined() ? gradient_buffer(x, first) : nullptr;
             if (!gx) continue;
             const real* saved = saved_gradient.data();
             if (first) for_each_index(saved_gradient.numel(), [=](int64_t i) { gx[i] = g * saved[i]; });
             else for_each_index(saved_gradient.numel(), [=](int64_t i) { gx[i] += g * saved[i]; });
           }
         });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
