// exercise.h — what the layer_forward exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include <functional>

#include "tensor/tensor.h"

namespace attnlab::exercises {

// A part of the layer as a function: [B, T, d_model] → [B, T, d_model].
using LayerPart = std::function<Tensor(const Tensor&)>;

// The parts of one encoder layer, named as EncoderLayer's members (src/model/transformer.h). The check hands
// over the library's own modules, wrapped: the mask bound into the attention, dropout off.
struct EncoderLayerParts {
  LayerPart self_attention;        // x ↦ SelfAttn(x): self_attn.forward(x, x, mask), queries, keys and values from x
  LayerPart self_attn_layer_norm;  // the attention sublayer's LayerNorm
  LayerPart feed_forward;          // x ↦ FFN(x): ffn.forward(x), position by position
  LayerPart final_layer_norm;      // the feed-forward sublayer's LayerNorm
  bool pre_norm = false;           // model.norm: pre; false is post, the paper's
};

// x [B, T, d_model] → the encoder layer's output [B, T, d_model], wired post-norm or pre-norm as layer.pre_norm says.
Tensor encoder_layer_forward(const Tensor& x, const EncoderLayerParts& layer);

}  // namespace attnlab::exercises
