// context.h — what a forward pass needs besides its inputs.
//
// * training: dropout is applied only when true (at inference it is the identity).
// * generator: where dropout draws its masks (seeded from the run's seed, so runs repeat exactly).
// * recorder: when set, every attention module hands its attention map to it (chapter "Looking inside");
//   when null nothing is copied — recording costs nothing unless asked for.
#pragma once

#include <string>

#include "tensor/tensor.h"

namespace attnlab::inline ATTNLAB_PRECISION {

// Receives attention maps: name like "encoder.layers.0.self_attn", weights [B, heads, T_query, T_key]
// (for external attention T_key is the number of memory slots).
class AttentionRecorder {
 public:
  virtual ~AttentionRecorder() = default;
  virtual void record(const std::string& name, const Tensor& weights) = 0;
};

struct ForwardContext {
  bool training = false;
  Generator* generator = nullptr;       // required when training with dropout > 0
  AttentionRecorder* recorder = nullptr;
};

}  // namespace attnlab::inline ATTNLAB_PRECISION
