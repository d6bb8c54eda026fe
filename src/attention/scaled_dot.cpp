// scaled_dot.cpp — multi-head scaled dot-product attention (Vaswani et al. 2017, §3.2): the score q·k / √d_k.
//
//   score_ij = q_i · k_j / √d_k                                per head, d_k = d_model / h
//   head_h   = softmax(Q_h K_hᵀ / √d_k + mask) V_h,   out = concat(head_1 … head_h) W_Oᵀ   (multi_head.cpp)
// Why divide by √d_k: for random q, k with unit-variance entries, q·k has variance d_k; without the scale the
// softmax saturates as d_k grows and its gradients vanish (`scale: false` lets a learner watch that happen).
// The mask adds −∞ to hidden keys (padding, the future, outside the window) so they get weight exactly 0.
// Cost: O(n² · d) time and O(h · n²) memory for the weights.
// With a window [left, right] the mask also hides every key outside [i − left, i + right]. The chain computes the
// full matrix and masks it; the fused path computes the scores only inside the window (band_scores / band_mix,
// kernels/kernels.h): O(n · W · d) time and O(h · n · W) memory, W = left + right + 1 — the same numbers.
#include "attention/scaled_dot.h"

#include <algorithm>

#include "autograd/ops.h"
#include "kernels/kernels.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// The band [B, h, Tq, W] written out as the full map [B, h, Tq, Tk] (zeros outside the window), for the
// recorder: inspection shows the same picture whichever way the weights were computed.
Tensor full_map(const Tensor& band, int64_t left, int64_t Tk) {
  const int64_t rows = band.size(0) * band.size(1) * band.size(2), Tq = band.size(2), W = band.size(3);
  Tensor full = Tensor::zeros({band.size(0), band.size(1), Tq, Tk});      // [B, h, Tq, Tk]
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t w = 0; w < W; ++w) {
      const int64_t j = r % Tq - left + w;
      if (j >= 0 && j < Tk) full.data()[r * Tk + j] = band.data()[r * W + w];
    }
  return full;
}

}  // namespace

ScaledDotAttention::ScaledDotAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, double dropout,
                                       Generator& init, Projections projections)
    : ScaledDotAttention(c, d_model, heads, dropout, d_model / heads) {
  if (projections == Projections::identity) {
    out_proj = add_projection("out_proj", d_model, d_model, init);          // W_O alone
    return;
  }
  add_projections(d_model, init);                                            // W_Q, W_K, W_V, W_O
  has_kernels_ = true;
}

ScaledDotAttention::ScaledDotAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, double dropout,
                                       int64_t d_k)
    : MultiHeadAttention(c, d_model, heads, dropout),
      factor_(c.scale ? score_scale(d_k) : real(1)),
      has_kernels_(false) {}

// The score: score_ij = q_i · k_j / √d_k, every head at once.
Tensor ScaledDotAttention::score(const Tensor& Q, const Tensor& K, ForwardContext&) {
  Tensor scores = matmul(Q, K, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, h, Tq, Tk] = Q Kᵀ
  return config_.scale ? scale(scores, factor_) : scores;                   // [B, h, Tq, Tk] / √d_k
}

real ScaledDotAttention::score_one(int64_t, const real* q, const real* k, int64_t d_k) const {
  return dot_product(q, k, d_k) * factor_;                                   // q_t · k_j / √d_k
}

// model.path: paper runs multi_head.cpp's chain op by op; fused runs the same as one fused op over the unsplit
// projections (kernels/scaled_dot_attention.cpp: no head split/merge copies, one graph node instead of thirteen),
// or with a window the banded kernels, which never make the [Tq, Tk] matrix. test_two_paths.cpp checks both.
Tensor ScaledDotAttention::forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask,
                                   ForwardContext& ctx) {
  if (!fused() || !has_kernels_) return MultiHeadAttention::forward(x, memory, mask, ctx);   // the chain
  return fused_attention(x, memory, mask, ctx);                              // [B, Tq, d_model], the same
}

Tensor ScaledDotAttention::fused_attention(const Tensor& x, const Tensor& memory, const AttentionMask& mask,
                                           ForwardContext& ctx) {
  Tensor q = q_proj->forward(x);                                             // [B, Tq, d_model]
  Tensor k = k_proj->forward(memory);                                        // [B, Tk, d_model]
  Tensor v = v_proj->forward(memory);                                        // [B, Tk, d_model]
  if (config_.has_window) {                                                  // the banded kernels
    Tensor Q = split_heads(q, heads_), K = split_heads(k, heads_), V = split_heads(v, heads_);   // [B, h, T, d_k]
    return output(merge_heads(windowed(Q, K, V, mask, ctx)), ctx);           // [B, Tq, d_model]
  }
  const real p = ctx.training ? static_cast<real>(dropout_) : real(0);
  if (p > 0 && !ctx.generator) throw Error("dropout while training needs a random generator in the ForwardContext");
  const bool want_weights = ctx.recorder || ctx.tracer;
  Tensor weights;                                                            // [B, h, Tq, Tk], rows sum to 1
  Tensor context = scaled_dot_attention(q, k, v, heads_, factor_, mask.additive(config_), p, ctx.generator,
                                        want_weights ? &weights : nullptr);  // [B, Tq, d_model]
  ctx.trace(*this, "weights", weights);
  if (ctx.recorder) ctx.recorder->record(name, weights);
  return output(context, ctx);                                               // [B, Tq, d_model]
}

// softmax(Q Kᵀ / √d_k + mask) V over the window only: the scores as a band [B, h, Tq, W].
Tensor ScaledDotAttention::windowed(const Tensor& Q, const Tensor& K, const Tensor& V, const AttentionMask& mask,
                                    ForwardContext& ctx) {
  const int64_t Tq = Q.size(2), Tk = K.size(2);
  // Keys outside [0, Tk) never exist and a causal query sees no later key, so the band need not reach them.
  const int64_t left = std::min(config_.window_left, std::max<int64_t>(Tq - 1, 0));
  const int64_t right = std::min(mask.causal ? int64_t{0} : config_.window_right, Tk - 1);
  Tensor scores = band_scores(Q, K, left, right);                            // [B, h, Tq, W]
  if (config_.scale) scores = scale(scores, factor_);                        // / √d_k
  Tensor weights = softmax(scores, mask.band_additive(config_, left, left + right + 1));   // [B, h, Tq, W]
  if (ctx.recorder) ctx.recorder->record(name, full_map(weights, left, Tk));
  if (ctx.training && dropout_ > 0) {                                        // what dropout() drops of the full map
    if (!ctx.generator) throw Error("dropout while training needs a random generator in the ForwardContext");
    weights = band_dropout(weights, left, Tk, static_cast<real>(dropout_), *ctx.generator);  // [B, h, Tq, W]
  }
  return band_mix(weights, V, left);                                         // [B, h, Tq, d_k]
}

std::unique_ptr<Attention> make_scaled_dot_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                     int64_t heads, double dropout, Generator& init) {
  return std::make_unique<ScaledDotAttention>(c, d_model, heads, dropout, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
