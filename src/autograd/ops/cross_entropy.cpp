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
#include "tensor/parallel.h"
#include "tensor/row_math.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

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

  // Fast path (this loop): the row max, e^(z_c − m) and the sums come from row_math.h's vectorised kernels, and
  // rows are shared among the OpenMP threads; each row's loss lands in its own slot and the slots are added in
  // row order afterwards, so the result is the same for any number of threads. The slow, obvious version is
  // the scalar loop `for (c) { sum_exp += std::exp(row[c] - m); sum_z += row[c]; }` per row, summed as it goes;
  // tests/tensor/test_row_math.cpp checks this op against exactly that.
  for (int64_t r = 0; r < rows; ++r) {                                  // the targets first: a clear error
    const int32_t t = targets.values[static_cast<size_t>(r)];
    if (t != ignore_id && (t < 0 || t >= V)) {
      throw Error("cross_entropy: target " + std::to_string(t) + " at position " + targets.shape.index_of(r) +
                  " is outside the vocabulary [0, " + std::to_string(V) + ") of the logits " +
                  logits.shape().str() + " (and is not ignore_id = " + std::to_string(ignore_id) + ")");
    }
  }
  std::vector<real> lse(static_cast<size_t>(rows), real(0));            // [rows]: log Σ_c e^(z_c) per row
  std::vector<real> row_loss(static_cast<size_t>(rows), real(0));       // [rows]: loss_i, 0 where ignored
  const int32_t* ids = targets.values.data();
#pragma omp parallel if (worth_threads(rows * V))
  {
    std::vector<real> e(static_cast<size_t>(V));                        // [V] e^(z_c − m) of the current row
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      const int32_t t = ids[r];
      if (t == ignore_id) continue;                                     // padding: no loss, no gradient
      const real* row = z + r * V;                                      // [V]
      const real m = row_max(row, V);                                   // subtract the max: e^(z - m) ≤ 1
      const real sum_exp = exp_shifted(row, m, V, e.data());            // Σ_c e^(z_c − m)
      const real sum_z = row_sum(row, V);                               // Σ_c z_c
      const real log_sum_exp = m + std::log(sum_exp);
      lse[static_cast<size_t>(r)] = log_sum_exp;
      const real nll = log_sum_exp - row[t];                            // -log p_t
      const real uniform_nll = log_sum_exp - sum_z / static_cast<real>(V);  // (1/V) Σ_c -log p_c
      row_loss[static_cast<size_t>(r)] = (1 - epsilon) * nll + epsilon * uniform_nll;  // loss_i
    }
  }
  real total = 0;                                                       // Σ_i loss_i over kept positions
  int64_t kept = 0;                                                     // N
  for (int64_t r = 0; r < rows; ++r) {
    if (ids[r] == ignore_id) continue;
    total += row_loss[static_cast<size_t>(r)];
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
           const int64_t rows = static_cast<int64_t>(ids.size());
           // Rows in parallel; each row writes only its own gradient row. Per row: gz_c += g/N · (p_c − ε/V),
           // then the target's extra −(1 − ε) (the obvious loop computes q_c per element; same value).
#pragma omp parallel if (worth_threads(rows * V))
           {
             std::vector<real> p(static_cast<size_t>(V));               // [V] p_c of the current row
#pragma omp for schedule(static)
             for (int64_t r = 0; r < rows; ++r) {
               const int32_t t = ids[static_cast<size_t>(r)];
               if (t == ignore_id) continue;
               const int64_t start = r * V;                             // row r of [rows, V]
               exp_shifted(z + start, lse[static_cast<size_t>(r)], V, p.data());  // p_c = e^(z_c - lse)
               real* gzr = gz + start;                                  // [V]
               for (int64_t c = 0; c < V; ++c) gzr[c] += g_over_n * (p[c] - smooth);  // q_c = ε/V off target
               gzr[t] -= g_over_n * (1 - epsilon);                     // q_t = ε/V + (1 − ε)
             }
           }
         });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
