// layers.cpp — LayerNorm, FeedForward and dropout-when-training.
#include "nn/layers.h"

#include "autograd/ops.h"
#include "kernels/kernels.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

Tensor apply_dropout(const Tensor& x, double p, ForwardContext& ctx) {
  if (!ctx.training || p <= 0) return x;
  if (!ctx.generator) throw Error("dropout while training needs a random generator in the ForwardContext");
  return dropout(x, static_cast<real>(p), *ctx.generator);
}

Tensor add_with_dropout(const Tensor& x, const Tensor& s, double p, ForwardContext& ctx, ComputePath path) {
  if (!ctx.training || p <= 0) return add(x, s);                           // [B, T, d]
  if (path == ComputePath::paper) return add(x, apply_dropout(s, p, ctx));  // [B, T, d] = x + Dropout(s)
  if (!ctx.generator) throw Error("dropout while training needs a random generator in the ForwardContext");
  return add_dropout(x, s, static_cast<real>(p), *ctx.generator);          // the same, one op, one tensor fewer
}

LayerNorm::LayerNorm(int64_t d_model, double epsilon) : eps(epsilon) {
  weight = register_parameter("weight", Tensor::full({d_model}, 1));
  bias = register_parameter("bias", Tensor::zeros({d_model}));
}

Tensor LayerNorm::forward(const Tensor& x) const {
  // The paper's path: the op, one row after the other in backward; fused: the kernel, rows in parallel.
  if (fused()) return fused_layer_norm(x, weight, bias, static_cast<real>(eps));   // [..., d_model]
  return layer_norm(x, weight, bias, static_cast<real>(eps));             // [..., d_model]
}

const std::vector<std::string>& choice_names(Activation) {
  static const std::vector<std::string> names{"relu", "gelu"};
  return names;
}

FeedForward::FeedForward(int64_t d_model, int64_t d_ff, Activation act, double p, Generator& init)
    : linear1(register_module("linear1", std::make_unique<Linear>(d_model, d_ff, init))),
      linear2(register_module("linear2", std::make_unique<Linear>(d_ff, d_model, init))),
      activation(act),
      dropout(p) {}

Tensor FeedForward::forward(const Tensor& x, ForwardContext& ctx) const {
  Tensor hidden = linear1.forward(x);                                       // [B, T, d_ff]
  // The fused path does activation and dropout as one op when it can: ReLU, while training with dropout. (A trace
  // runs on the paper's path, inspect/maps/trace.cpp, and never trains.)
  const bool fuse = fused() && activation == Activation::relu && ctx.training && dropout > 0;
  if (!fuse) {
    hidden = activation == Activation::relu ? relu(hidden) : gelu(hidden);  // [B, T, d_ff]
    ctx.trace(*this, "hidden", hidden);
    hidden = apply_dropout(hidden, dropout, ctx);                           // [B, T, d_ff]
  } else {
    if (!ctx.generator) throw Error("dropout while training needs a random generator in the ForwardContext");
    hidden = relu_dropout(hidden, static_cast<real>(dropout), *ctx.generator);  // the same as one op
  }
  Tensor out = linear2.forward(hidden);                                     // [B, T, d_model]
  ctx.trace(linear2, out);
  return out;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
