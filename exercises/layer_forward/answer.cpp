// answer.cpp — the project's answer to the layer_forward exercise. Try exercise.cpp first: the check tells you
// where you are wrong.
//
// The library writes the wiring once, sublayer() in src/model/transformer.cpp (post and pre, with dropout and
// the residual as options), and EncoderLayer::forward is two calls of it: the attention sublayer, then the
// feed-forward sublayer on its result. The decoder layer is the same with a third sublayer, cross-attention,
// between the two.
#include "autograd/ops.h"
#include "exercise.h"

namespace attnlab::exercises {

namespace {

// Post-norm (the paper): each sublayer's output is added to its input, and the sum normalised.
Tensor post_norm_layer(const Tensor& x, const EncoderLayerParts& layer) {
  const Tensor h = layer.self_attn_layer_norm(add(x, layer.self_attention(x)));   // [B, T, d] LN_1(x + SelfAttn(x))
  return layer.final_layer_norm(add(h, layer.feed_forward(h)));                   // [B, T, d] LN_2(h + FFN(h))
}

// Pre-norm: each sublayer reads a normalised copy, and its output is added to the stream as it is.
Tensor pre_norm_layer(const Tensor& x, const EncoderLayerParts& layer) {
  const Tensor h = add(x, layer.self_attention(layer.self_attn_layer_norm(x)));   // [B, T, d] x + SelfAttn(LN_1(x))
  return add(h, layer.feed_forward(layer.final_layer_norm(h)));                   // [B, T, d] h + FFN(LN_2(h))
}

}  // namespace

Tensor encoder_layer_forward(const Tensor& x, const EncoderLayerParts& layer) {
  return layer.pre_norm ? pre_norm_layer(x, layer) : post_norm_layer(x, layer);
}

}  // namespace attnlab::exercises
