// Exercise layer_forward (chapter model): the forward pass of one encoder layer, from its parts.
//
// An encoder layer of the Transformer (Vaswani et al. 2017, §3.1, Figure 1) has two sublayers: self-attention,
// where every position reads every other, then a feed-forward network applied to each position on its own. Each
// sublayer is wrapped the same way — a residual connection around it (its input added back to its output) and a
// LayerNorm — and where the LayerNorm sits is model.norm (transformer.h; sublayer() in src/model/transformer.cpp):
//
//   post (the paper):                               pre:
//     h   = LN_1(x + SelfAttn(x))                     h   = x + SelfAttn(LN_1(x))
//     out = LN_2(h + FFN(h))                          out = h + FFN(LN_2(h))
//
// LN_1 is self_attn_layer_norm and LN_2 final_layer_norm: two LayerNorms with their own γ and β. Post-norm
// normalises the stream after each sublayer; pre-norm normalises only what a sublayer reads, and the stream
// x → h → out runs through additions alone (the stack adds one last LayerNorm after its final layer, not part of
// a layer). The feed-forward sublayer reads h, the attention sublayer's result, not x.
// Dropout: the library applies it to each sublayer's output before the residual addition (x + Dropout(f(x))),
// and inside the parts (on the attention weights, on the FFN's hidden units). It is off in this check, as in
// evaluation: leave it out.
//
// Shapes: x [B, T, d_model]; every part maps [B, T, d_model] → [B, T, d_model] (exercise.h): call them as
// functions, layer.self_attention(x), layer.self_attn_layer_norm(x), …. add(a, b) (src/autograd/ops.h) is a + b.
//
// Check:  tools/exercise.sh layer_forward
//   builds the library's EncoderLayer (src/model/transformer.cpp), hands you its modules as the parts, and
//   compares your output with its forward(), post-norm first, then pre-norm.
#include "autograd/ops.h"
#include "exercise.h"

namespace attnlab::exercises {

Tensor encoder_layer_forward(const Tensor& x, const EncoderLayerParts& layer) {
  // TODO: the attention sublayer, then the feed-forward sublayer, each with its residual and its LayerNorm,
  // in the placement layer.pre_norm says.
  return Tensor::zeros(x.shape());                                   // [B, T, d_model]
}

}  // namespace attnlab::exercises
