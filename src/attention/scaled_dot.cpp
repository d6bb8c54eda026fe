// scaled_dot.cpp — multi-head scaled dot-product attention (Vaswani et al. 2017, §3.2).
//
//   Q = x W_Qᵀ,  K = m W_Kᵀ,  V = m W_Vᵀ                      projections of the queries' and keys' sequences
//   head_h = softmax(Q_h K_hᵀ / √d_k + mask) V_h               one attention per slice of d_k = d_model / h
//   out    = concat(head_1 … head_h) W_Oᵀ
// Why divide by √d_k: for random q, k with unit-variance entries, q·k has variance d_k; without the scale the
// softmax saturates as d_k grows and its gradients vanish (`scale: false` lets a learner watch that happen).
// The mask adds −∞ to hidden keys (padding, the future, outside the window) so they get weight exactly 0.
// Cost: O(n² · d) time and O(h · n²) memory for the weights.
#include <cmath>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "nn/layers.h"
#include "tensor/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

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

  // The computation, op by op, is
  //   Q = split_heads(q_proj(x)), K = split_heads(k_proj(memory)), V = split_heads(v_proj(memory))   [B, h, T, d_k]
  //   weights = softmax(Q Kᵀ · 1/√d_k, mask)                                                      [B, h, Tq, Tk]
  //   out = out_proj(merge_heads(dropout(weights) · V))                                           [B, Tq, d_model]
  // and it runs as one fused op over the projections (src/autograd/ops/scaled_dot_attention.cpp: no head
  // split/merge copies, one graph node instead of six); tests/test_fused_attention.cpp checks the fused op against
  // exactly that chain of ops, forward and backward.
  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override {
    const real s = config_.scale ? static_cast<real>(1.0 / std::sqrt(double(x.size(2) / heads_))) : real(1);
    const real p = ctx.training ? static_cast<real>(dropout_) : real(0);
    if (p > 0 && !ctx.generator) throw Error("dropout while training needs a random generator in the ForwardContext");
    Tensor weights;                                                          // [B, h, Tq, Tk], rows sum to 1
    Tensor context = scaled_dot_attention(q_proj.forward(x), k_proj.forward(memory), v_proj.forward(memory),
                                          heads_, s, mask.additive(config_), p, ctx.generator,
                                          ctx.recorder ? &weights : nullptr);  // [B, Tq, d_model]
    if (ctx.recorder) ctx.recorder->record(name, weights);
    return out_proj.forward(context);                                        // [B, Tq, d_model]
  }

  Linear& q_proj;
  Linear& k_proj;
  Linear& v_proj;
  Linear& out_proj;

 private:
  AttentionConfig config_;
  int64_t heads_;
  double dropout_;
};

}  // namespace

std::unique_ptr<Attention> make_scaled_dot_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                     int64_t heads, double dropout, Generator& init) {
  return std::make_unique<ScaledDotAttention>(c, d_model, heads, dropout, init);
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
