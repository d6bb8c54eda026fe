// layers.h — the small layers a Transformer layer is assembled from: LayerNorm, FeedForward, Dropout.
//
//   LayerNorm(x)   = (x − mean) / √(var + ε) · weight + bias          over the last axis (Ba et al. 2016)
//   FeedForward(x) = linear2(dropout(activation(linear1(x))))         d_model → d_ff → d_model (§3.3)
//   apply_dropout  = dropout(x, p) while training, x otherwise
#pragma once

#include <string>

#include "nn/context.h"
#include "nn/linear.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Dropout as used inside modules: active only when ctx.training and p > 0.
Tensor apply_dropout(const Tensor& x, double p, ForwardContext& ctx);
// The residual connection x + Dropout(s) (x + s when not training): add(x, dropout(s)) on the paper's path, one
// fused op on the fused path (kernels/fused_dropout.cpp) — the same bits either way.
Tensor add_with_dropout(const Tensor& x, const Tensor& s, double p, ForwardContext& ctx, ComputePath path);

class LayerNorm : public Module {
 public:
  explicit LayerNorm(int64_t d_model, double eps = 1e-5);
  Tensor forward(const Tensor& x) const;   // [..., d_model] → same shape
  Tensor weight;  // [d_model], γ, starts at 1
  Tensor bias;    // [d_model], β, starts at 0
  double eps;
};

// The nonlinearity between the feed-forward network's two linear layers (model.activation).
enum class Activation { relu, gelu };
const std::vector<std::string>& choice_names(Activation);   // "relu", "gelu" (util/choice.h)

class FeedForward : public Module {
 public:
  FeedForward(int64_t d_model, int64_t d_ff, Activation activation, double dropout, Generator& init);
  Tensor forward(const Tensor& x, ForwardContext& ctx) const;   // [B, T, d_model] → [B, T, d_model]
  Linear& linear1;  // d_model → d_ff
  Linear& linear2;  // d_ff → d_model
  Activation activation;
  double dropout;
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
