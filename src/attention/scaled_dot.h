// scaled_dot.h — scaled dot-product attention, the family's default, and the kind the others build on.
#pragma once

#include "attention/multi_head.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

class ScaledDotAttention : public MultiHeadAttention {
 public:
  // Which projections make Q, K and V: the paper's W_Q, W_K, W_V (d_model × d_model), or none at all — Q = x,
  // K = V = m, the simplified kind (simplified.cpp). W_O is there either way.
  enum class Projections { learned, identity };
  // With learned projections, model.path: fused runs the chain as kernels.
  ScaledDotAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, double dropout, Generator& init,
                     Projections projections = Projections::learned);
  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override;

 protected:
  // For the kinds built on it (simplified, sagan, local, hard): they register their own projections, with heads of
  // d_k numbers, and run the chain on either path (the kernels stand for the plain kind only).
  ScaledDotAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, double dropout, int64_t d_k);

  Tensor score(const Tensor& Q, const Tensor& K, ForwardContext& ctx) override;
  real score_one(int64_t head, const real* q, const real* k, int64_t d_k) const override;

 private:
  Tensor fused_attention(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx);
  Tensor windowed(const Tensor& Q, const Tensor& K, const Tensor& V, const AttentionMask& mask, ForwardContext& ctx);

  real factor_;       // 1/√d_k (score_scale), or 1 with `scale: false`
  bool has_kernels_;  // the plain kind: model.path: fused runs the kernels
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
