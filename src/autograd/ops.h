// ops.h — the op set: every differentiable operation attnlab's models are built from.
//
// This header is the table of contents of chapter 2. Each op lives in src/autograd/ops/<file>.cpp, where its
// forward computation and its backward function (the derivative, written out) sit side by side, and each has a
// finite-difference gradient check in src/autograd/checks/<file>.cpp (run by tests and `attnlab gradcheck`).
//
// Conventions:
//   * Shapes are row-major, [batch, time, feature]; axes may be negative (-1 is the last).
//   * Every op returns a new tensor (no op changes its inputs), records itself with record() (graph.h), and in
//     backward only adds (+=) into the gradients of inputs that want one.
//   * A shape that does not fit throws attnlab::Error naming the op and both shapes.
#pragma once

#include <cstdint>
#include <vector>

#include "autograd/graph.h"
#include "tensor/tensor.h"
#include "tensor/token_ids.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// ---- Elementwise arithmetic with broadcasting (ops/elementwise.cpp) ----
// NumPy broadcasting: shapes are aligned at the last axis; each pair of sizes must be equal or one of them 1
// (a missing leading axis counts as 1). So x [B, T, d] + b [d] adds a row to every position, x [B, T, d] * m
// [B, T, 1] scales every row by its own number, and q [B, T, 1, d] + k [B, 1, S, d] makes [B, T, S, d].
// Backward sums the gradient over the axes an input was broadcast along.
Tensor add(const Tensor& a, const Tensor& b);         // a + b
Tensor sub(const Tensor& a, const Tensor& b);         // a - b
Tensor mul(const Tensor& a, const Tensor& b);         // a ⊙ b (elementwise product)
Tensor scale(const Tensor& x, real factor);           // factor · x
Tensor add_scalar(const Tensor& x, real constant);    // x + constant
inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator*(const Tensor& x, real factor) { return scale(x, factor); }
inline Tensor operator*(real factor, const Tensor& x) { return scale(x, factor); }

// ---- Matrix product (ops/matmul.cpp) ----
// C = op(A) · op(B), where op transposes the last two axes when asked.
//   A [..., n, k] (or [..., k, n] with transpose_a), B [..., k, m] (or [..., m, k] with transpose_b) → C [..., n, m]
// Leading (batch) axes of A and B must be equal, or B may be a plain matrix shared by every batch entry
// (x [B, T, d_in] · Wᵀ [d_in, d_out] is a Linear layer). Backward: ∂A = ∂C · Bᵀ, ∂B = Aᵀ · ∂C (transposed to match).
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);

// ---- Shape ops (ops/shape.cpp) ----
Tensor reshape(const Tensor& x, const Shape& shape);                  // same numbers, new shape (numel must agree)
Tensor permute(const Tensor& x, const std::vector<int>& axes);        // y.shape[i] = x.shape[axes[i]]
Tensor transpose(const Tensor& x, int axis_a, int axis_b);            // permute swapping two axes
Tensor slice(const Tensor& x, int axis, int64_t start, int64_t end);  // x[..., start:end, ...] along axis
Tensor concat(const std::vector<Tensor>& xs, int axis);               // join along axis; other sizes must agree

// ---- Activations (ops/activations.cpp), elementwise ----
Tensor relu(const Tensor& x);          // max(x, 0)
Tensor gelu(const Tensor& x);          // x · Φ(x), Φ the standard normal CDF (exact erf form, PyTorch's default)
Tensor tanh(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor elu_plus_one(const Tensor& x);  // elu(x) + 1 = x + 1 for x > 0, eˣ otherwise: the positive feature map φ
                                       // of linear attention

// ---- Softmax (ops/softmax.cpp), over the last axis ----
// softmax(x + mask): y_i = e^(x_i + m_i) / Σ_j e^(x_j + m_j). The additive mask (optional) broadcasts to x like
// add(); its entries are 0 (keep) or -infinity (hide). A row whose every entry is hidden gives all zeros — no
// NaN — and passes no gradient. The mask is a constant: it receives no gradient.
Tensor softmax(const Tensor& x, const Tensor& additive_mask = Tensor());
Tensor log_softmax(const Tensor& x);   // x_i - log Σ_j e^(x_j), computed stably

// ---- Layer normalization (ops/layer_norm.cpp), over the last axis ----
// y = (x - mean) / sqrt(var + eps) · gamma + beta, var the biased variance (as PyTorch). Saves mean and 1/σ
// per row for backward. gamma, beta: [d].
Tensor layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, real eps = 1e-5);

// ---- Dropout (ops/dropout.cpp) ----
// Training-time dropout: each number is zeroed with probability p and the survivors scaled by 1/(1-p), so the
// expected value is unchanged. One key is drawn from gen (none when p = 0); the mask is a function of that key and
// each number's index, recomputed in backward rather than kept. p in [0, 1).
// (At inference simply do not call it.)
Tensor dropout(const Tensor& x, real p, Generator& gen);
// For fused kernels that must drop exactly what dropout() would: the key dropout() draws, and the mask values
// m[t] of elements first + t, t < n, of the tensor it would drop (0 with probability p, else 1/(1-p)).
uint64_t draw_dropout_key(Generator& gen);
void dropout_mask(uint64_t key, int64_t first, int64_t n, real p, real* m);

// ---- Embedding lookup (ops/embedding.cpp) ----
// y[..., :] = weight[id, :], weight [V, d], ids of any shape → ids.shape + [d]. Backward scatter-adds each
// row of ∂y into the row of ∂weight it came from (an id used twice gets both contributions).
// An id outside [0, V) throws attnlab::Error.
Tensor embedding(const Tensor& weight, const TokenIds& ids);

// ---- Reductions and scans (ops/reductions.cpp) ----
Tensor sum(const Tensor& x);                                    // all numbers → [1]
Tensor mean(const Tensor& x);                                   // all numbers → [1]
Tensor sum(const Tensor& x, int axis, bool keepdim = false);    // along one axis (a rank-1 input gives [1])
Tensor mean(const Tensor& x, int axis, bool keepdim = false);
Tensor cumsum(const Tensor& x, int axis);                       // y_i = Σ_{j ≤ i} x_j along axis
// L1 normalisation: y = x / (Σ_axis x + eps), each slice along `axis` divided by its own sum.
Tensor divide_by_sum(const Tensor& x, int axis, real eps = 0);

// ---- Loss (ops/cross_entropy.cpp) ----
// Cross-entropy of logits [..., V] against target ids (logits' shape without the last axis), fused with
// log-softmax, with label smoothing ε as in PyTorch:
//   loss_i = (1 - ε) · (-log p_i[target_i]) + (ε / V) · Σ_c (-log p_i[c])
// averaged over the positions whose target is not ignore_id (typically the pad id). If every position is
// ignored the loss is 0. Returns [1]. Backward: ∂loss/∂logit_c = (p_c - q_c) / N, q the smoothed target.
Tensor cross_entropy(const Tensor& logits, const TokenIds& targets, real label_smoothing = 0,
                     int32_t ignore_id = -1);

// ---- Ops for the attention family (ops/attention_ops.cpp) ----
// Prefix softmax along `axis`: position i is normalised over positions j ≤ i only (a causal softmax),
//   y_i = e^(z_i) / Σ_{j ≤ i} e^(z_j),   z = x + additive_mask
// The mask (optional) broadcasts to x like softmax's; entries 0 (keep) or -infinity (hide). Hidden entries
// give 0 and pass no gradient; a position whose whole prefix is hidden gives 0 (no NaN). Computed with a
// running max (online softmax), so y_i depends on x_0 … x_i alone — bit for bit, whatever comes later.
// External attention's token-axis softmax in the decoder. The mask is a constant: it receives no gradient.
Tensor prefix_softmax(const Tensor& x, int axis, const Tensor& additive_mask = Tensor());
// a / b, elementwise with broadcasting (add()'s rules). No guard against b = 0: add an ε first where needed.
Tensor divide(const Tensor& a, const Tensor& b);

// ---- The attention-sum of pointer readers (ops/pointer_sum.cpp) ----
// P[b, w] = Σ of s[b, i] over the positions i where document[b, i] = w: attention over document positions
// s [B, n] summed per word into [B, vocab] (Kadlec et al. 2016; the cloze readers of attention/reader.cpp).
// An id outside [0, vocab) throws attnlab::Error. The ids receive no gradient.
Tensor pointer_sum(const Tensor& s, const TokenIds& document, int64_t vocab);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
