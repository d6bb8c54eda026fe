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
// The slow, obvious version is the chain of ops src/attention/scaled_dot.cpp used before this op existed:
//   split_heads → matmul(Q, K, false, true) → scale → softmax(·, mask) → dropout → matmul(·, V) → merge_heads
// with six graph nodes and five [B, h, T, T]- or [B, h, T, d_k]-sized temporaries. Here the blocks run in
// parallel (OpenMP over B·h; each writes only its own columns of its own sentence, so the threads never touch
// the same number and the result is the same for any thread count); the dropout mask is drawn before, in the
// order the dropout op would draw it for A [B, h, Tq, Tk], so both versions drop the same weights.
// tests/test_fused_attention.cpp compares the two, forward and backward.
//
// Every product is written as a sum over its inner index in order (i.e. each output number is summed
// k = 0, 1, 2, …), with the vectorised loop running over the output's columns — the same bits wherever the
// tensors sit. Q·Kᵀ is done against a transposed copy of the block of K, so that its inner loop is contiguous too.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/ops/row_math.h"
#include "tensor/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

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

}  // namespace

Tensor scaled_dot_attention(const Tensor& Q, const Tensor& K, const Tensor& V, int64_t heads, real scale,
                            const Tensor& additive_mask, real dropout_p, Generator* gen, Tensor* weights) {
  const AttentionSizes n = check_shapes(Q, K, V, heads, additive_mask);
  const int64_t B = n.B, Tq = n.Tq, Tk = n.Tk, d_model = n.d_model, d_k = n.d_k;
  if (!(dropout_p >= 0 && dropout_p < 1)) {
    throw Error("scaled_dot_attention: the dropout probability must be in [0, 1), got " +
                std::to_string(dropout_p));
  }
  const bool drop = dropout_p > 0;
  if (drop && !gen) throw Error("scaled_dot_attention: dropout p > 0 needs a random generator");

  Tensor A = Tensor::zeros({B, heads, Tq, Tk});                         // [B, h, Tq, Tk] softmax weights
  Tensor D;                                                             // [B, h, Tq, Tk] dropout mask
  if (drop) {
    D = Tensor::zeros(A.shape());
    draw_dropout_mask(D.data(), D.numel(), dropout_p, *gen);            // the dropout op's draws, in its order
  }
  Tensor out = Tensor::zeros({B, Tq, d_model});                         // [B, Tq, d_model]
  const real* q = Q.data();
  const real* k = K.data();
  const real* v = V.data();
  const real* m = additive_mask.defined() ? additive_mask.data() : nullptr;
  real* a = A.data();
  const real* dm = drop ? D.data() : nullptr;
  real* o = out.data();

#pragma omp parallel
  {
    std::vector<real> K_t(static_cast<size_t>(d_k * Tk));               // [d_k, Tk] K_hᵀ of the block
    std::vector<real> weights(static_cast<size_t>(Tk));                 // [Tk] one row of A'
#pragma omp for schedule(static)
    for (int64_t block = 0; block < B * heads; ++block) {
      const int64_t b = block / heads, h = block % heads;
      const int64_t column = h * d_k;                                   // head h's first feature
      for (int64_t j = 0; j < Tk; ++j)
        for (int64_t c = 0; c < d_k; ++c) K_t[c * Tk + j] = k[(b * Tk + j) * d_model + column + c];
      for (int64_t i = 0; i < Tq; ++i) {
        real* S = a + (block * Tq + i) * Tk;                            // [Tk] row i of S, then of A
        const real* q_i = q + (b * Tq + i) * d_model + column;          // [d_k]
        std::fill(S, S + Tk, real(0));
        for (int64_t c = 0; c < d_k; ++c) {                             // S_i = Σ_c q_ic · K_hᵀ[c, :]
          const real q_ic = q_i[c];
          const real* K_c = K_t.data() + c * Tk;
          for (int64_t j = 0; j < Tk; ++j) S[j] += q_ic * K_c[j];
        }
        const real* M_i = m ? m + (b * Tq + i) * Tk : nullptr;          // [Tk]
        for (int64_t j = 0; j < Tk; ++j) S[j] = S[j] * scale + (M_i ? M_i[j] : real(0));  // s · q kᵀ + M
        const real max = row_max(S, Tk);                                // softmax, as ops/softmax.cpp
        if (max == minus_infinity) {
          std::fill(S, S + Tk, real(0));                                // every key hidden: zeros
        } else {
          const real total = exp_shifted(S, max, Tk, S);
          for (int64_t j = 0; j < Tk; ++j) S[j] /= total;
        }
        const real* D_i = dm ? dm + (block * Tq + i) * Tk : nullptr;
        for (int64_t j = 0; j < Tk; ++j) weights[j] = D_i ? S[j] * D_i[j] : S[j];  // A' = A ⊙ D
        real* o_i = o + (b * Tq + i) * d_model + column;                // [d_k] row i of O_h
        for (int64_t j = 0; j < Tk; ++j) {                              // O_i = Σ_j A'_ij · v_j
          const real w = weights[j];
          const real* v_j = v + (b * Tk + j) * d_model + column;
          for (int64_t c = 0; c < d_k; ++c) o_i[c] += w * v_j[c];
        }
      }
    }
  }

  if (weights) *weights = A;                                             // shared numbers, no history

  record(out, "scaled_dot_attention", {Q, K, V}, [Q, K, V, A, D, n, scale](TensorNode& node) {
    const int64_t B = n.B, Tq = n.Tq, Tk = n.Tk, d_model = n.d_model, heads = n.heads, d_k = n.d_k;
    const real* q = Q.data();
    const real* k = K.data();
    const real* v = V.data();
    const real* a = A.data();
    const real* dm = D.defined() ? D.data() : nullptr;
    const real* g = node.grad.data();                                   // [B, Tq, d_model]
    real* gq = wants_grad(Q) ? Q.grad() : nullptr;
    real* gk = wants_grad(K) ? K.grad() : nullptr;
    real* gv = wants_grad(V) ? V.grad() : nullptr;
#pragma omp parallel
    {
      std::vector<real> V_t(static_cast<size_t>(d_k * Tk));             // [d_k, Tk] V_hᵀ of the block
      std::vector<real> dS(static_cast<size_t>(Tq * Tk));               // [Tq, Tk] s · ∂S of the block
      std::vector<real> row(static_cast<size_t>(Tk));                   // [Tk] ∂A' of one row
#pragma omp for schedule(static)
      for (int64_t block = 0; block < B * heads; ++block) {
        const int64_t b = block / heads, h = block % heads;
        const int64_t column = h * d_k;
        for (int64_t j = 0; j < Tk; ++j)
          for (int64_t c = 0; c < d_k; ++c) V_t[c * Tk + j] = v[(b * Tk + j) * d_model + column + c];
        for (int64_t i = 0; i < Tq; ++i) {
          const real* A_i = a + (block * Tq + i) * Tk;                  // [Tk]
          const real* D_i = dm ? dm + (block * Tq + i) * Tk : nullptr;
          const real* G_i = g + (b * Tq + i) * d_model + column;        // [d_k] ∂O_h row i
          if (gv) {                                                     // ∂V_h += A'ᵀ G: ∂v_j += A'_ij · G_i
            for (int64_t j = 0; j < Tk; ++j) {
              const real w = D_i ? A_i[j] * D_i[j] : A_i[j];
              real* gv_j = gv + (b * Tk + j) * d_model + column;
              for (int64_t c = 0; c < d_k; ++c) gv_j[c] += w * G_i[c];
            }
          }
          std::fill(row.begin(), row.end(), real(0));                   // ∂A'_i = Σ_c G_ic · V_hᵀ[c, :]
          for (int64_t c = 0; c < d_k; ++c) {
            const real g_ic = G_i[c];
            const real* V_c = V_t.data() + c * Tk;
            for (int64_t j = 0; j < Tk; ++j) row[j] += g_ic * V_c[j];
          }
          if (D_i) for (int64_t j = 0; j < Tk; ++j) row[j] *= D_i[j];  // ∂A = ∂A' ⊙ D
          real g_dot_a = 0;                                             // Σ_j ∂A_ij · A_ij
          for (int64_t j = 0; j < Tk; ++j) g_dot_a += row[j] * A_i[j];
          real* dS_i = dS.data() + i * Tk;
          for (int64_t j = 0; j < Tk; ++j) dS_i[j] = A_i[j] * (row[j] - g_dot_a) * scale;  // s · ∂S
        }
        if (gq) {                                                       // ∂Q_h += s·∂S K_h
          for (int64_t i = 0; i < Tq; ++i) {
            real* gq_i = gq + (b * Tq + i) * d_model + column;
            for (int64_t j = 0; j < Tk; ++j) {
              const real w = dS[i * Tk + j];
              const real* k_j = k + (b * Tk + j) * d_model + column;
              for (int64_t c = 0; c < d_k; ++c) gq_i[c] += w * k_j[c];
            }
          }
        }
        if (gk) {                                                       // ∂K_h += (s·∂S)ᵀ Q_h
          for (int64_t j = 0; j < Tk; ++j) {
            real* gk_j = gk + (b * Tk + j) * d_model + column;
            for (int64_t i = 0; i < Tq; ++i) {
              const real w = dS[i * Tk + j];
              const real* q_i = q + (b * Tq + i) * d_model + column;
              for (int64_t c = 0; c < d_k; ++c) gk_j[c] += w * q_i[c];
            }
          }
        }
      }
    }
  });
  return out;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
