// scaled_dot.cpp — multi-head scaled dot-product attention (Vaswani et al. 2017, §3.2).
//
//   Q = x W_Qᵀ,  K = m W_Kᵀ,  V = m W_Vᵀ                      projections of the queries' and keys' sequences
//   head_h = softmax(Q_h K_hᵀ / √d_k + mask) V_h               one attention per slice of d_k = d_model / h
//   out    = concat(head_1 … head_h) W_Oᵀ
// Why divide by √d_k: for random q, k with unit-variance entries, q·k has variance d_k; without the scale the
// softmax saturates as d_k grows and its gradients vanish (`scale: false` lets a learner watch that happen).
// The mask adds −∞ to hidden keys (padding, the future, outside the window) so they get weight exactly 0.
// Cost: O(n² · d) time and O(h · n²) memory for the weights.
// With a window [left, right] the mask also hides every key outside [i − left, i + right]. The paper's chain (the
// paper's path, attention() below) computes the full matrix and masks it; the fused path computes the scores only
// inside the window (band_scores / band_mix, kernels/kernels.h): O(n · W · d) time and O(h · n · W) memory,
// W = left + right + 1 — the same numbers.
#include <algorithm>
#include <cmath>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "kernels/kernels.h"
#include "nn/layers.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

class ScaledDotAttention : public Attention {
 public:
  ScaledDotAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, double dropout, Generator& init)
      : q_proj(register_module("q_proj", std::make_unique<Linear>(d_model, d_model, init))),
        k_proj(register_module("k_proj", std::make_unique<Linear>(d_model, d_model, init))),
        v_proj(register_module("v_proj", std::make_unique<Linear>(d_model, d_model, init))),
        out_proj(register_module("out_proj", std::make_unique<Linear>(d_model, d_model, init))),
        config_(c),
        heads_(heads),
        dropout_(dropout) {}

  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override {
    Tensor q = q_proj.forward(x);                                            // [B, Tq, d_model]
    Tensor k = k_proj.forward(memory);                                       // [B, Tk, d_model]
    Tensor v = v_proj.forward(memory);                                       // [B, Tk, d_model]
    Tensor context;                                                          // [B, Tq, d_model], heads merged
    if (!fused()) {
      context = attention(split_heads(q, heads_), split_heads(k, heads_), split_heads(v, heads_), mask, ctx);
    } else {
      context = fused_attention(q, k, v, mask, ctx);                             // the same, by the kernels
    }
    Tensor out = out_proj.forward(context);                                  // [B, Tq, d_model]
    ctx.trace(out_proj, out);
    return out;
  }

  // The paper's chain, op by op (the paper's path, model.path: paper):
  //   head_h = dropout(softmax(Q_h K_hᵀ / √d_k + mask)) V_h      for every head at once, Q, K, V [B, h, T, d_k]
  Tensor attention(const Tensor& Q, const Tensor& K, const Tensor& V, const AttentionMask& mask, ForwardContext& ctx) {
    ctx.trace(*this, "q", Q);                                                // [B, h, Tq, d_k]
    ctx.trace(*this, "k", K);                                                // [B, h, Tk, d_k]
    ctx.trace(*this, "v", V);                                                // [B, h, Tk, d_k]
    const Tensor additive_mask = mask.additive(config_);                    // [B, 1, Tq, Tk], 0 or −∞
    Tensor scores = matmul(Q, K, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, h, Tq, Tk] = Q Kᵀ
    if (config_.scale) scores = scale(scores, score_scale(Q.size(3)));      // [B, h, Tq, Tk] / √d_k
    ctx.trace(*this, "scores", scores, additive_mask);                       // as the softmax sees them
    Tensor weights = softmax(scores, additive_mask);                         // [B, h, Tq, Tk], rows sum to 1
    ctx.trace(*this, "weights", weights);
    if (ctx.recorder) ctx.recorder->record(name, weights);
    Tensor context = matmul(apply_dropout(weights, dropout_, ctx), V);       // [B, h, Tq, d_k]
    ctx.trace(*this, "context", context);
    return merge_heads(context);                                             // [B, Tq, d_model]
  }

  // The same as one fused op over the unsplit projections (kernels/scaled_dot_attention.cpp: no head split/merge
  // copies, one graph node instead of thirteen), or, with a window, the banded kernels that never make the [Tq, Tk]
  // matrix (kernels/banded_attention.cpp). tests/model/test_two_paths.cpp checks both against attention().
  Tensor fused_attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionMask& mask,
                     ForwardContext& ctx) {
    if (config_.has_window) {
      return merge_heads(windowed(split_heads(q, heads_), split_heads(k, heads_), split_heads(v, heads_), mask,
                                  ctx));                                     // [B, Tq, d_model]
    }
    const real s = config_.scale ? score_scale(q.size(2) / heads_) : real(1);
    const real p = ctx.training ? static_cast<real>(dropout_) : real(0);
    if (p > 0 && !ctx.generator) throw Error("dropout while training needs a random generator in the ForwardContext");
    const bool want_weights = ctx.recorder || ctx.tracer;
    Tensor weights;                                                          // [B, h, Tq, Tk], rows sum to 1
    Tensor context = scaled_dot_attention(q, k, v, heads_, s, mask.additive(config_), p, ctx.generator,
                                          want_weights ? &weights : nullptr);  // [B, Tq, d_model]
    ctx.trace(*this, "weights", weights);
    if (ctx.recorder) ctx.recorder->record(name, weights);
    return context;
  }

  // Incremental decoding (cache.cpp): the same steps for the one newest query, its keys kept in the cache.
  AttentionCache start_self_cache(int64_t batch, int64_t capacity) override {
    const int64_t d_k = q_proj.weight.size(0) / heads_;
    return make_kv_cache(batch, heads_, capacity, d_k, d_k, config_);
  }
  AttentionCache start_cross_cache(const Tensor& memory, const std::vector<uint8_t>& memory_is_real) override {
    return make_kv_cache(split_heads(k_proj.forward(memory), heads_),         // [B, h, Tk, d_k]
                         split_heads(v_proj.forward(memory), heads_), memory_is_real);
  }
  Tensor step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) override {
    Tensor Q = split_heads(q_proj.forward(x), heads_);                       // [B, h, 1, d_k]
    if (cache.self) {
      append_key(cache, split_heads(k_proj.forward(x), heads_),              // k_t, v_t: [B, h, 1, d_k]
                 split_heads(v_proj.forward(x), heads_), x_is_real);
    }
    const int64_t d_k = Q.size(3);
    const real factor = config_.scale ? score_scale(d_k) : real(1);
    Tensor context = attend_cached(cache, config_, [&](int64_t row, const real* k) {
      return dot_product(Q.data() + row * d_k, k, d_k) * factor;             // q_t · k_j / √d_k
    });                                                                      // [B, h, 1, d_k]
    ++cache.position;
    return out_proj.forward(merge_heads(context));                           // [B, 1, d_model]
  }

  Linear& q_proj;
  Linear& k_proj;
  Linear& v_proj;
  Linear& out_proj;

 private:
  // softmax(Q Kᵀ / √d_k + mask) V over the window only: the scores as a band [B, h, Tq, W].
  Tensor windowed(const Tensor& Q, const Tensor& K, const Tensor& V, const AttentionMask& mask, ForwardContext& ctx) {
    const int64_t Tq = Q.size(2), Tk = K.size(2);
    // Keys outside [0, Tk) never exist and a causal query sees no later key, so the band need not reach them.
    const int64_t left = std::min(config_.window_left, std::max<int64_t>(Tq - 1, 0));
    const int64_t right = std::min(mask.causal ? int64_t{0} : config_.window_right, Tk - 1);
    Tensor scores = band_scores(Q, K, left, right);                          // [B, h, Tq, W]
    if (config_.scale) scores = scale(scores, score_scale(Q.size(3)));
    Tensor weights = softmax(scores, mask.band_additive(config_, left, left + right + 1));   // [B, h, Tq, W]
    if (ctx.recorder) ctx.recorder->record(name, full_map(weights, left, Tk));
    if (ctx.training && dropout_ > 0) {                                      // what dropout() drops of the full map
      if (!ctx.generator) throw Error("dropout while training needs a random generator in the ForwardContext");
      weights = band_dropout(weights, left, Tk, static_cast<real>(dropout_), *ctx.generator);  // [B, h, Tq, W]
    }
    return band_mix(weights, V, left);                                       // [B, h, Tq, d_k]
  }

  // The band [B, h, Tq, W] written out as the full map [B, h, Tq, Tk] (zeros outside the window), for the
  // recorder: inspection shows the same picture whichever way the weights were computed.
  static Tensor full_map(const Tensor& band, int64_t left, int64_t Tk) {
    const int64_t rows = band.size(0) * band.size(1) * band.size(2), Tq = band.size(2), W = band.size(3);
    Tensor full = Tensor::zeros({band.size(0), band.size(1), Tq, Tk});      // [B, h, Tq, Tk]
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t w = 0; w < W; ++w) {
        const int64_t j = r % Tq - left + w;
        if (j >= 0 && j < Tk) full.data()[r * Tk + j] = band.data()[r * W + w];
      }
    return full;
  }

  AttentionConfig config_;
  int64_t heads_;
  double dropout_;
};

}  // namespace

std::unique_ptr<Attention> make_scaled_dot_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                     int64_t heads, double dropout, Generator& init) {
  return std::make_unique<ScaledDotAttention>(c, d_model, heads, dropout, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
