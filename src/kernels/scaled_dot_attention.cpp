// scaled_dot_attention.cpp — multi-head scaled dot-product attention as one op, forward and backward, one
// (sentence, head) block at a time (Vaswani et al. 2017, §3.2.1–3.2.2).
//
// For sentence b and head h, with d_k = d_model / heads and head h owning the feature columns
// [h·d_k, (h+1)·d_k) of Q, K and V (so no split_heads / merge_heads copies are needed):
//
//   forward                                          shapes, per block
//   S  = s · Q_h K_hᵀ + M                            [Tq, Tk]   s the scale (1/√d_k), M the additive mask (0 / −∞)
//   A  = softmax(S)   (row-wise)                     [Tq, Tk]   a row hidden everywhere gives zeros
//   A' = A ⊙ D                                       [Tq, Tk]   D the dropout mask: 0 or 1/(1 − p) (D = 1 when p = 0)
//   O_h = A' V_h                                     [Tq, d_k]  written into out[b, :, h·d_k : (h+1)·d_k]
//
//   backward (G = ∂loss/∂O_h, [Tq, d_k])
//   ∂V_h += A'ᵀ G                                    [Tk, d_k]
//   ∂A'   = G V_hᵀ                                   [Tq, Tk]
//   ∂A    = ∂A' ⊙ D
//   ∂S_ij = A_ij (∂A_ij − Σ_j' ∂A_ij' A_ij')         softmax's backward, row by row (ops/softmax.cpp)
//   ∂Q_h += s · ∂S K_h                               [Tq, d_k]
//   ∂K_h += s · ∂Sᵀ Q_h                              [Tk, d_k]
//
// It replaces the chain of ops MultiHeadAttention::attend() runs for scaled_dot on the paper's path (model.path: paper)
// (src/attention/scaled_dot.cpp):
//   split_heads → matmul(Q, K, false, true) → scale → softmax(·, mask) → dropout → matmul(·, V) → merge_heads
// with six graph nodes (eight with the splits and merges) and five [B, h, T, T]- or [B, h, T, d_k]-sized
// temporaries kept for backward; here one node keeps one [B, h, Tq, Tk] tensor, A. The blocks run in parallel
// (OpenMP over B·h; each writes only its own columns of its own sentence, so the threads never touch the same
// number and the result is the same for any thread count). The dropout mask D is not stored: it is a function of
// one key drawn from the generator and of the weight's index in A [B, h, Tq, Tk] (ops/dropout.cpp), computed row
// by row in forward and again in backward — exactly the mask dropout() would draw for A.
// What it saves, measured when it came in with the other kernels of that work: the small benchmark model's
// forward went from 100 ms-class to 25 ms. tests/kernels/test_fused_attention.cpp compares it with the chain,
// forward and backward, and tests/model/f64_two_paths.cpp and test_two_paths.cpp compare the whole model on both
// paths. The file reads as llm.c's layers do: scaled_dot_attention_forward() and scaled_dot_attention_backward()
// below, each under its equations, and the op at the bottom that runs the one and records the other.
//
// Each block's six products are small_matmul calls (tensor/product/small_matmul.h: register tiles, each output number one
// chain of multiply-adds over its inner index in order — the same bits wherever the tensors sit). K_hᵀ (forward)
// and V_hᵀ (backward) are copied transposed into scratch, so that every product runs along contiguous rows; the
// other head slices are read, and the products written, in place in the tensors when d_k is a whole number of
// vector packets (d_k = 32 in float: two of 16), and through zero-padded copies otherwise (head_rows,
// product_into_head). The copies cost O(T · d_k) next to the O(T² · d_k) of the products.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "kernels/gradient_buffer.h"
#include "kernels/kernels.h"
#include "tensor/parallel.h"
#include "tensor/product/small_matmul.h"
#include "tensor/row_math.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr real minus_infinity = -std::numeric_limits<real>::infinity();

struct AttentionSizes {
  int64_t B = 0, Tq = 0, Tk = 0, d_model = 0, heads = 0, d_k = 0;
};

AttentionSizes check_shapes(const Tensor& Q, const Tensor& K, const Tensor& V, int64_t heads,
                            const Tensor& additive_mask) {
  const std::string shapes = "scaled_dot_attention: Q " + Q.shape().str() + ", K " + K.shape().str() + ", V " +
                             V.shape().str();
  if (Q.rank() != 3 || K.rank() != 3 || V.rank() != 3) {
    throw Error(shapes + ": each must be [batch, time, d_model]");
  }
  AttentionSizes s{Q.size(0), Q.size(1), K.size(1), Q.size(2), heads, 0};
  if (K.shape() != V.shape() || K.size(0) != s.B || K.size(2) != s.d_model) {
    throw Error(shapes + ": K and V must have the same shape, with Q's batch and d_model");
  }
  if (heads <= 0 || s.d_model % heads != 0) {
    throw Error(shapes + ": d_model " + std::to_string(s.d_model) + " is not divisible by " +
                std::to_string(heads) + " heads");
  }
  s.d_k = s.d_model / heads;
  if (additive_mask.defined() && additive_mask.shape() != Shape{s.B, 1, s.Tq, s.Tk}) {
    throw Error(shapes + ": the additive mask must be [B, 1, Tq, Tk] = " + Shape{s.B, 1, s.Tq, s.Tk}.str() +
                ", but is " + additive_mask.shape().str());
  }
  return s;
}

// Head h's [T, d_k] slice of one sentence of a [B, T, d_model] tensor, as small_matmul reads its Y operand: rows of
// whole packets, `stride` numbers apart. When d_k is a multiple of the packet (d_k = 32 or 64 in float), that is the
// tensor itself, rows d_model apart; otherwise a copy whose rows are padded with zeros to padded_width(d_k).
struct HeadRows {
  const real* data;
  int64_t stride;
};

HeadRows head_rows(const real* sentence, int64_t T, int64_t d_model, int64_t column, int64_t d_k,
                   std::vector<real>& padded) {
  const int64_t dk_pad = padded_width(d_k);
  if (dk_pad == d_k) return {sentence + column, d_model};
  for (int64_t t = 0; t < T; ++t) std::copy_n(sentence + t * d_model + column, d_k, padded.data() + t * dk_pad);
  return {padded.data(), dk_pad};                                       // padding columns stay 0
}

// target_h = X · Y (or target_h += X · Y when accumulate) for head h's [T, d_k] slice of one sentence of a
// [B, T, d_model] tensor: small_matmul straight into the tensor when d_k is a multiple of the packet, else into
// `scratch` ([T, padded d_k]) and from there into the slice.
void product_into_head(int64_t T, int64_t d_k, int64_t depth, const real* X, int64_t x_row, int64_t x_col,
                       HeadRows Y, real* sentence, int64_t d_model, int64_t column, bool accumulate,
                       std::vector<real>& scratch) {
  const int64_t dk_pad = padded_width(d_k);
  if (dk_pad == d_k) {
    small_matmul(T, d_k, depth, X, x_row, x_col, Y.data, Y.stride, sentence + column, d_model, accumulate);
    return;
  }
  small_matmul(T, dk_pad, depth, X, x_row, x_col, Y.data, Y.stride, scratch.data(), dk_pad);
  for (int64_t t = 0; t < T; ++t) {
    real* row = sentence + t * d_model + column;                        // [d_k]
    const real* product = scratch.data() + t * dk_pad;
    for (int64_t c = 0; c < d_k; ++c) row[c] = accumulate ? row[c] + product[c] : product[c];
  }
}

// What the forward pass keeps for the backward pass: the inputs, the weights A, and what made the dropout mask.
struct AttentionSaved {
  Tensor Q, K, V;              // [B, Tq, d_model], [B, Tk, d_model], [B, Tk, d_model]
  Tensor A;                    // [B, h, Tq, Tk] softmax weights, before dropout
  AttentionSizes n;
  real scale = 1;              // s = 1/√d_k (or 1)
  uint64_t key = 0;            // the dropout key: D is recomputed from it, never stored
  real dropout_p = 0;
};

// ---- Forward: for every block (sentence b, head h), O_h = (softmax(s Q_h K_hᵀ + M) ⊙ D) V_h ----------------
// Fills saved.A and `out` [B, Tq, d_model] (each block its own head columns). `mask` is M [B, 1, Tq, Tk] or null.
void scaled_dot_attention_forward(AttentionSaved& saved, const real* mask, real* out) {
  const AttentionSizes& n = saved.n;
  const int64_t Tq = n.Tq, Tk = n.Tk, d_model = n.d_model, heads = n.heads, d_k = n.d_k;
  const int64_t tk_pad = padded_width(Tk), dk_pad = padded_width(d_k);  // scratch row lengths
  const bool drop = saved.dropout_p > 0;
  const real *q = saved.Q.data(), *k = saved.K.data(), *v = saved.V.data();
  real* a = saved.A.data();
#pragma omp parallel if (worth_threads_for_products(n.B * heads * Tq * Tk * d_k))   // the blocks' multiply-adds
  {
    std::vector<real> K_t(static_cast<size_t>(d_k * tk_pad), real(0)); // [d_k, Tk] K_hᵀ, rows padded with 0
    std::vector<real> V_padded(static_cast<size_t>(Tk * dk_pad), real(0));  // [Tk, d_k] V_h if d_k needs padding
    std::vector<real> S(static_cast<size_t>(Tq * tk_pad));             // [Tq, Tk] S, then A' in place
    std::vector<real> O_padded(static_cast<size_t>(Tq * dk_pad));      // [Tq, d_k] O_h if d_k needs padding
    std::vector<real> D(static_cast<size_t>(drop ? Tq * Tk : 0));       // [Tq, Tk] the block's dropout mask
#pragma omp for schedule(static)
    for (int64_t block = 0; block < n.B * heads; ++block) {
      const int64_t b = block / heads, column = (block % heads) * d_k;  // head h's first feature
      transpose_block(Tk, d_k, k + b * Tk * d_model + column, d_model, K_t.data(), tk_pad);  // K_hᵀ
      if (drop) dropout_mask(saved.key, block * Tq * Tk, Tq * Tk, saved.dropout_p, D.data());  // D of A[b, h]
      const real* Q_h = q + b * Tq * d_model + column;                  // [Tq, d_k], rows d_model apart
      small_matmul(Tq, tk_pad, d_k, Q_h, d_model, 1, K_t.data(), tk_pad, S.data(), tk_pad);  // S = Q_h K_hᵀ
      for (int64_t i = 0; i < Tq; ++i) {
        real* S_i = S.data() + i * tk_pad;                              // [Tk] row i of S, then of A, then A'
        const real* M_i = mask ? mask + (b * Tq + i) * Tk : nullptr;    // [Tk]
        for (int64_t j = 0; j < Tk; ++j) S_i[j] = S_i[j] * saved.scale + (M_i ? M_i[j] : real(0));  // s·q kᵀ + M
        const real max = row_max(S_i, Tk);                              // softmax, as ops/softmax.cpp
        if (max == minus_infinity) {
          std::fill(S_i, S_i + Tk, real(0));                            // every key hidden: zeros
        } else {
          const real total = exp_shifted(S_i, max, Tk, S_i);
          for (int64_t j = 0; j < Tk; ++j) S_i[j] /= total;
        }
        std::copy(S_i, S_i + Tk, a + (block * Tq + i) * Tk);            // A, kept for backward
        if (drop) {                                                     // A' = A ⊙ D
          const real* D_i = D.data() + i * Tk;
          for (int64_t j = 0; j < Tk; ++j) S_i[j] *= D_i[j];
        }
      }
      const HeadRows V_h = head_rows(v + b * Tk * d_model, Tk, d_model, column, d_k, V_padded);  // [Tk, d_k]
      product_into_head(Tq, d_k, Tk, S.data(), tk_pad, 1, V_h, out + b * Tq * d_model, d_model, column,
                        /*accumulate=*/false, O_padded);                // O_h = A' V_h
    }
  }
}

// ---- Backward: for every block, with G = ∂O_h and A' = A ⊙ D ----------------------------------------------------
//   ∂V_h += A'ᵀ G      ∂A = (G V_hᵀ) ⊙ D      s·∂S_ij = s · A_ij (∂A_ij − Σ_j' ∂A_ij' A_ij')
//   ∂Q_h += s·∂S K_h   ∂K_h += (s·∂S)ᵀ Q_h
// `grad` is ∂out [B, Tq, d_model]. Each block writes its rows and head columns of ∂V, then ∂Q, then ∂K; the first
// gradient a tensor receives is written (=) rather than added (kernels/gradient_buffer.h). Asked for in that same
// order, so that when Q, K and V are one tensor ∂V is written first and ∂Q, ∂K are added to it.
void scaled_dot_attention_backward(const AttentionSaved& saved, const real* grad) {
  const AttentionSizes& n = saved.n;
  const int64_t Tq = n.Tq, Tk = n.Tk, d_model = n.d_model, heads = n.heads, d_k = n.d_k;
  const int64_t tk_pad = padded_width(Tk), dk_pad = padded_width(d_k);
  const bool drop = saved.dropout_p > 0;
  const real *q = saved.Q.data(), *k = saved.K.data(), *v = saved.V.data(), *a = saved.A.data();
  bool first_v = false, first_q = false, first_k = false;
  real* gv = gradient_buffer(saved.V, first_v);
  real* gq = gradient_buffer(saved.Q, first_q);
  real* gk = gradient_buffer(saved.K, first_k);
#pragma omp parallel if (worth_threads_for_products(n.B * heads * Tq * Tk * d_k))
  {
    std::vector<real> V_t(static_cast<size_t>(d_k * tk_pad), real(0));  // [d_k, Tk] V_hᵀ, rows padded with 0
    std::vector<real> padded_Q(static_cast<size_t>(Tq * dk_pad), real(0));  // [Tq, d_k] } when d_k needs
    std::vector<real> padded_K(static_cast<size_t>(Tk * dk_pad), real(0));  // [Tk, d_k] } padding (head_rows)
    std::vector<real> padded_G(static_cast<size_t>(Tq * dk_pad), real(0));  // [Tq, d_k] }
    std::vector<real> padded_grad(static_cast<size_t>(std::max(Tq, Tk) * dk_pad));  // product_into_head's scratch
    std::vector<real> D(static_cast<size_t>(Tq * Tk), real(1));         // [Tq, Tk] dropout mask (1 without)
    std::vector<real> A_drop(static_cast<size_t>(Tq * tk_pad));         // [Tq, Tk] A' = A ⊙ D
    std::vector<real> dS(static_cast<size_t>(Tq * tk_pad));             // [Tq, Tk] ∂A', then s · ∂S
#pragma omp for schedule(static)
    for (int64_t block = 0; block < n.B * heads; ++block) {
      const int64_t b = block / heads, column = (block % heads) * d_k;
      transpose_block(Tk, d_k, v + b * Tk * d_model + column, d_model, V_t.data(), tk_pad);  // V_hᵀ
      const HeadRows G_h = head_rows(grad + b * Tq * d_model, Tq, d_model, column, d_k, padded_G);  // ∂O_h
      const real* A_b = a + block * Tq * Tk;                            // [Tq, Tk] this block's A
      if (drop) dropout_mask(saved.key, block * Tq * Tk, Tq * Tk, saved.dropout_p, D.data());  // forward's D
      for (int64_t i = 0; i < Tq; ++i) {
        const real* D_i = D.data() + i * Tk;
        for (int64_t j = 0; j < Tk; ++j) A_drop[i * tk_pad + j] = A_b[i * Tk + j] * D_i[j];  // A' = A ⊙ D
      }
      if (gv) {                                                         // ∂V_h += A'ᵀ G
        product_into_head(Tk, d_k, Tq, A_drop.data(), 1, tk_pad, G_h, gv + b * Tk * d_model, d_model, column,
                          !first_v, padded_grad);
      }
      small_matmul(Tq, tk_pad, d_k, G_h.data, G_h.stride, 1, V_t.data(), tk_pad, dS.data(), tk_pad);  // G V_hᵀ
      for (int64_t i = 0; i < Tq; ++i) {
        const real* A_i = A_b + i * Tk;                                 // [Tk]
        const real* D_i = D.data() + i * Tk;
        real* dS_i = dS.data() + i * tk_pad;
        for (int64_t j = 0; j < Tk; ++j) dS_i[j] *= D_i[j];             // ∂A = ∂A' ⊙ D
        const real g_dot_a = row_dot(dS_i, A_i, Tk);                    // Σ_j ∂A_ij · A_ij
        for (int64_t j = 0; j < Tk; ++j) dS_i[j] = A_i[j] * (dS_i[j] - g_dot_a) * saved.scale;  // s · ∂S
      }
      if (gq) {                                                         // ∂Q_h += s·∂S K_h
        const HeadRows K_h = head_rows(k + b * Tk * d_model, Tk, d_model, column, d_k, padded_K);
        product_into_head(Tq, d_k, Tk, dS.data(), tk_pad, 1, K_h, gq + b * Tq * d_model, d_model, column,
                          !first_q, padded_grad);
      }
      if (gk) {                                                         // ∂K_h += (s·∂S)ᵀ Q_h
        const HeadRows Q_h = head_rows(q + b * Tq * d_model, Tq, d_model, column, d_k, padded_Q);
        product_into_head(Tk, d_k, Tq, dS.data(), 1, tk_pad, Q_h, gk + b * Tk * d_model, d_model, column,
                          !first_k, padded_grad);
      }
    }
  }
}

}  // namespace

// The op: checks, the forward pass, and the backward pass recorded as the node's closure.
Tensor scaled_dot_attention(const Tensor& Q, const Tensor& K, const Tensor& V, int64_t heads, real scale,
                            const Tensor& additive_mask, real dropout_p, Generator* gen, Tensor* weights) {
  const AttentionSizes n = check_shapes(Q, K, V, heads, additive_mask);
  if (!(dropout_p >= 0 && dropout_p < 1)) {
    throw Error("scaled_dot_attention: the dropout probability must be in [0, 1), got " +
                std::to_string(dropout_p));
  }
  if (dropout_p > 0 && !gen) throw Error("scaled_dot_attention: dropout p > 0 needs a random generator");
  const uint64_t key = dropout_p > 0 ? draw_dropout_key(*gen) : 0;     // the key dropout(A, p, gen) would draw
  Tensor A = Tensor::empty({n.B, heads, n.Tq, n.Tk});                    // [B, h, Tq, Tk], filled by forward
  AttentionSaved saved{Q, K, V, A, n, scale, key, dropout_p};
  Tensor out = Tensor::empty({n.B, n.Tq, n.d_model});                   // [B, Tq, d_model]
  scaled_dot_attention_forward(saved, additive_mask.defined() ? additive_mask.data() : nullptr, out.data());
  if (weights) *weights = saved.A;                                       // shared numbers, no history

  if (no_graph(out, "scaled_dot_attention")) return out;  // no graph under NoGradGuard (graph.h)
  record(out, "scaled_dot_attention", {Q, K, V}, [saved](TensorNode& node) {
    scaled_dot_attention_backward(saved, node.grad.data());             // node.grad: ∂out [B, Tq, d_model]
  });
  return out;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
