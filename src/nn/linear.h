// linear.h — the affine layer y = x Wᵀ + b (PyTorch's nn.Linear).
//
//   x [..., in_features] → y [..., out_features];  weight W [out_features, in_features], bias b [out_features].
// W is stored [out, in] as in PyTorch, so its checkpoint name and shape match "….q_proj.weight" exactly.
// Initialisation as PyTorch: W and b uniform in ±1/√in_features.
#pragma once

#include "nn/module.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, Generator& init, bool bias = true);
  Tensor forward(const Tensor& x) const;   // [..., in] → [..., out]

  Tensor weight;  // [out, in]
  Tensor bias;    // [out], or undefined when bias = false
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
