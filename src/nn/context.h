// context.h — what a forward pass needs besides its inputs.
//
// * training: dropout is applied only when true (at inference it is the identity).
// * generator: where dropout draws its masks (seeded from the run's seed, so runs repeat exactly).
// * recorder: when set, every attention module hands its attention map to it (chapter "Looking inside");
//   when null nothing is copied — recording costs nothing unless asked for.
// * tracer: when set, the forward code hands it every stage it computes, in the order the code reads
//   (`attnlab trace`, src/inspect/maps/trace.h): `ctx.trace(*this, "q", Q)` names the line "<module path>.q".
//   When null each such line is one null check: no name is built, nothing is copied, no result changes.
// * sampled: where a module that samples (hard attention) leaves what it drew and what that owes (nn/sampled.h);
//   the training step owns it. replay: a pass that reads those draws instead of drawing anew (below).
#pragma once

#include <string>

#include "nn/module.h"
#include "nn/sampled.h"
#include "tensor/tensor.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Receives attention maps: name like "encoder.layers.0.self_attn", weights [B, heads, T_query, T_key]
// (for external attention T_key is the number of memory slots).
class AttentionRecorder {
 public:
  virtual ~AttentionRecorder() = default;
  virtual void record(const std::string& name, const Tensor& weights) = 0;
};

// Receives the stages of a forward pass: name like "decoder.layers.0.encoder_attn.weights", and the tensor.
class Tracer {
 public:
  virtual ~Tracer() = default;
  virtual void trace(const std::string& name, const Tensor& value) = 0;
};

struct ForwardContext {
  bool training = false;
  Generator* generator = nullptr;       // required when training with dropout > 0
  AttentionRecorder* recorder = nullptr;
  Tracer* tracer = nullptr;
  // While training: where sampling modules add their draws (null: nobody asked, draws owe nothing).
  SampledChoices* sampled = nullptr;
  // A second pass over the training batch, with training false (no dropout), in which hard attention reads the
  // keys it drew in the training pass (these) instead of choosing anew: how its reward is measured without
  // dropout's noise (model.attention.<use>.hard_clean_reward, Seq2Seq::loss).
  const SampledChoices* replay = nullptr;

  // Hands `value` to the tracer as "<where.path()>.<stage>" (just the path when stage is empty).
  void trace(const Module& where, const char* stage, const Tensor& value) const {
    if (tracer) tracer->trace(trace_name(where, stage), value);
  }
  void trace(const Module& where, const Tensor& value) const { trace(where, "", value); }
  // Attention scores as the softmax sees them: scores + additive_mask (−∞ on hidden keys), added only when traced.
  void trace(const Module& where, const char* stage, const Tensor& scores, const Tensor& additive_mask) const {
    if (tracer) tracer->trace(trace_name(where, stage), masked_for_trace(scores, additive_mask));
  }

 private:
  static std::string trace_name(const Module& where, const char* stage);
  static Tensor masked_for_trace(const Tensor& scores, const Tensor& additive_mask);
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
