// cross_entropy.cpp — the training loss: log-softmax and negative log-likelihood in one op, with label
// smoothing ("Attention Is All You Need" §5.4, ε_ls = 0.1; Szegedy et al. 2016, "Rethinking the Inception
// Architecture", §7). Matches PyTorch's nn.CrossEntropyLoss(label_smoothing=ε, ignore_index=ignore_id,
// reduction='mean') on logits flattened to [N, V].
//
// For one position with logits z [V] and target t, the model's distribution is p = softmax(z):
//     log p_c = z_c - lse,    lse = log Σ_c e^(z_c)  = m + log Σ_c e^(z_c - m),  m = max_c z_c  (no overflow)
// Label smoothing trains against a mixture of the one-hot target and the uniform distribution,
//     q_c = (1 - ε) · [c = t] + ε / V,
// and the loss is the cross-entropy H(q, p) = -Σ_c q_c · log p_c:
//     loss_i = (1 - ε) · (-log p_i[t_i]) + (ε / V) · Σ_c (-log p_i[c])
//            = (1 - ε) · (lse - z_t) + ε · (lse - mean_c z_c)
// The result is the mean of loss_i over the N positions whose target is not ignore_id (padding); with N = 0
// the loss is 0 and every gradient is 0.
//
//   forward                                            backward (g = ∂loss/∂y, a single number)
//   y = (1/N) Σ_i H(q_i, p_i)                 [1]      ∂z_i[c] += g · (p_i[c] - q_i[c]) / N    (kept positions)
//                                                      ∂z_i[c] += 0                          (ignored positions)
// Why p - q: ∂(-log p_c')/∂z_c = p_c - [c = c'], and Σ_c' q_c' = 1, so ∂H/∂z_c = Σ_c' q_c' (p_c - [c = c'])
// = p_c - q_c. Fusing the two steps gives this simple form and avoids log(0) when a probability underflows.
// Backward needs p; rather than keep [N, V] probabilities, forward saves one number per position, lse, and
// backward recomputes p_c = e^(z_c - lse) from the logits.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "tensor/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

// The checks, each ending in a message that names the op, what was expected and what was given.
void check_arguments(const Tensor& logits, const TokenIds& targets, real label_smoothing) {
  if (!(label_smoothing >= 0 && label_smoothing < 1)) {                 // also refuses NaN
    std::ostringstream message;
    message << "cross_entropy: label_smoothing must be in [0, 1), got " << label_smoothing;
    throw Error(message.str());
  }
  if (logits.rank() < 2) {
    throw Error("cross_entropy: logits must be [..., V] with at least one position axis (e.g. [N, V]), but "
                "have shape " + logits.shape().str() + "; for a single position use [1, V]");
  }
  if (logits.size(-1) == 0) {
    throw Error("cross_entropy: logits " + logits.shape().str() + " have no classes (the last axis, V, is 0)");
  }
  std::vector<int64_t> positions = logits.shape().sizes();
  positions.pop_back();                                                 // logits' shape without the V axis
  if (targets.shape != Shape(positions)) {
    throw Error("cross_entropy: targets must have the logits' shape without its last axis, " +
                Shape(positions).str() + " for logits " + logits.shape().str() + ", but have shape " +
                targets.shape.str());
  }
  if (static_cast<int64_t>(targets.values.size()) != targets.shape.numel()) {
    throw Error("cross_entropy: targets of shape " + targets.shape.str() + " should hold " +
                std::to_string(targets.shape.numel()) + " ids, but hold " + std::to_string(targets.values.size()));
  }
}

}  // namespace

Tensor cross_entropy(const Tensor& logits, const TokenIds& targets, real label_smoothing, int32_t ignore_id) {
  check_arguments(logits, targets, label_smoothing);
  const real epsilon = label_smoothing;
  const int64_t V = logits.size(-1);
  const int64_t rows = logits.numel() / V;                              // positions, e.g. B·T
  const real* z = logits.data();                                        // [rows, V], row r starts at r·V

  std::vector<real> lse(static_cast<size_t>(rows), real(0));            // [rows]: log Σ_c e^(z_c) per row
  real total = 0;                                                       // Σ_i loss_i over kept positions
  int64_t kept = 0;                                                     // N
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t t = targets.values[static_cast<size_t>(r)];
    if (t == ignore_id) continue;                                       // padding: no loss, no gradient
    if (t < 0 || t >= V) {
      throw Error("cross_entropy: target " + std::to_string(t) + " at position " + targets.shape.index_of(r) +
                  " is outside the vocabulary [0, " + std::to_string(V) + ") of the logits " +
                  logits.shape().str() + " (and is not ignore_id = " + std::to_string(ignore_id) + ")");
    }
    const real* row = z + r * V;                                        // [V]
    real m = row[0];
    for (int64_t c = 1; c < V; ++c) m = std::max(m, row[c]);            // subtract the max: e^(z - m) ≤ 1
    real sum_exp = 0, sum_z = 0;
    for (int64_t c = 0; c < V; ++c) {
      sum_exp += std::exp(row[c] - m);
      sum_z += row[c];
    }
    const real log_sum_exp = m + std::log(sum_exp);
    lse[static_cast<size_t>(r)] = log_sum_exp;
    const real nll = log_sum_exp - row[t];                              // -log p_t
    const real uniform_nll = log_sum_exp - sum_z / static_cast<real>(V);  // (1/V) Σ_c -log p_c
    total += (1 - epsilon) * nll + epsilon * uniform_nll;               // loss_i
    ++kept;
  }

  Tensor y = Tensor::zeros({1});                                        // [1]
  y.data()[0] = kept > 0 ? total / static_cast<real>(kept) : real(0);   // mean over the N kept positions

  record(y, "cross_entropy", {logits},
         [logits, ids = targets.values, lse = std::move(lse), epsilon, ignore_id, kept](TensorNode& out) {
           real* gz = logits.grad();                                    // [rows, V]; zeros for ignored rows
           if (kept == 0) return;                                       // every position ignored: gradient 0
           const real* z = logits.data();                               // [rows, V]
           const int64_t V = logits.size(-1);
           const real g_over_n = out.grad[0] / static_cast<real>(kept);  // g / N
           const real smooth = epsilon / static_cast<real>(V);          // ε / V, the uniform part of q
           for (size_t r = 0; r < ids.size(); ++r) {
             const int32_t t = ids[r];
             if (t == ignore_id) continue;
             const int64_t start = static_cast<int64_t>(r) * V;         // row r of [rows, V]
             for (int64_t c = 0; c < V; ++c) {
               const real p = std::exp(z[start + c] - lse[r]);          // p_c = e^(z_c - lse)
               const real q = smooth + (c == t ? 1 - epsilon : 0);      // q_c = ε/V + (1 - ε)·[c = t]
               gz[start + c] += g_over_n * (p - q);                     // ∂z_c += g · (p_c - q_c) / N
             }
           }
         });
  return y;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
