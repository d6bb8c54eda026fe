// model/checks/layers.cpp — gradient checks for the encoder layer, the decoder layer and the whole Seq2Seq
// model through its training loss, each differentiated with respect to its inputs and every parameter.
#include <memory>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "model/checks.h"
#include "model/masks.h"
#include "model/transformer.h"
#include "nn/checks.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// The small Transformer every layer and model case below uses (d_model 4, 2 heads: d_k = 2).
ModelConfig tiny_config(NormPlacement norm) {
  ModelConfig c;
  c.src_vocab = 7;
  c.tgt_vocab = 7;
  c.d_model = 4;
  c.heads = 2;
  c.d_ff = 6;
  c.encoder_layers = 1;
  c.decoder_layers = 1;
  c.dropout = 0;
  c.norm = norm;
  return c;
}

}  // namespace

std::vector<GradcheckCase> model_checks(Generator& init) {
  std::vector<GradcheckCase> cases;
  ForwardContext eval;  // not training: dropout off (it is 0 anyway)

  // ---- Transformer layers, on a padded batch: sentence 1 is one token shorter in both languages ----
  const TokenIds src{{2, 4}, {4, 5, 6, 2, 4, 6, 2, 0}};  // [B, S]
  const TokenIds tgt{{2, 3}, {1, 5, 4, 1, 6, 0}};        // [B, T], bos first
  // Both norm placements, and without residual connections (model.residual: false, an ablation) in both.
  for (const std::string wiring : {"post-LN", "pre-LN", "post-LN, no residual", "pre-LN, no residual"}) {
    ModelConfig c = tiny_config(wiring.rfind("pre", 0) == 0 ? NormPlacement::pre : NormPlacement::post);
    c.residual = wiring.find("no residual") == std::string::npos;
    const AttentionMask encoder_mask = make_padding_mask(src, 4, /*causal=*/false);
    cases.push_back(module_case<EncoderLayer>(
        "layer.encoder_layer", wiring + ", padded batch",
        std::make_shared<EncoderLayer>(c, "encoder.layers.0", init), {{2, 4, 4}},
        [encoder_mask, eval](EncoderLayer& m, const std::vector<Tensor>& in) mutable {
          return m.forward(in[0], encoder_mask, eval);                       // x [B, S, d]
        }));

    const AttentionMask self_mask = make_padding_mask(tgt, 3, /*causal=*/true);
    const AttentionMask cross_mask = make_padding_mask(src, 3, /*causal=*/false);
    cases.push_back(module_case<DecoderLayer>(
        "layer.decoder_layer", wiring + ", causal + padded, memory",
        std::make_shared<DecoderLayer>(c, "decoder.layers.0", init), {{2, 3, 4}, {2, 4, 4}},
        [self_mask, cross_mask, eval](DecoderLayer& m, const std::vector<Tensor>& in) mutable {
          return m.forward(in[0], in[1], self_mask, cross_mask, eval);      // y [B, T, d], memory [B, S, d]
        }));
    Generator own_init(48);   // its own weights: a case added here must not change the draws of the cases after it
    cases.push_back(module_case<DecoderLayer>(                             // GPT's layer: no cross-attention
        "layer.decoder_layer", wiring + ", no cross-attention (decoder-only), causal + padded",
        std::make_shared<DecoderLayer>(c, "decoder.layers.0", own_init, /*cross_attention=*/false), {{2, 3, 4}},
        [self_mask, eval](DecoderLayer& m, const std::vector<Tensor>& in) mutable {
          return m.forward(in[0], Tensor(), self_mask, AttentionMask(), eval);   // y [B, T, d]
        }));
  }

  // ---- the whole model, through its training loss ----
  // vocabulary 7, d_model 8, 2 heads, d_ff 16, one encoder and one decoder layer, sinusoidal positions.
  ModelConfig c = tiny_config(NormPlacement::post);
  c.d_model = 8;
  c.d_ff = 16;
  const TokenIds tgt_out{{2, 3}, {5, 4, 2, 6, 2, 0}};    // tgt shifted left, eos, pad (ignored by the loss)
  cases.push_back(module_case<Seq2Seq>(
      "model.seq2seq", "loss, smoothing 0.1, every parameter", std::make_shared<Seq2Seq>(c, init), {},
      [src, tgt, tgt_out, eval](Seq2Seq& m, const std::vector<Tensor>&) mutable {
        Tensor logits = m.forward(src, tgt, eval);                           // [B, T, V]
        return cross_entropy(logits, tgt_out, real(0.1), pad_id);            // [1]
      }));
  explain_op(cases, "layer.encoder_layer",
             "post-LN: h = LN(x + SelfAttn(x)), y = LN(h + FFN(h));  pre-LN: h = x + SelfAttn(LN(x)), y = h + "
             "FFN(LN(h))",
             "chain rule; the residual x + f(x) passes g to x unchanged and adds f's backward: "
             "∂x = g + J_f(x)ᵀ g (with model.residual: false only J_f(x)ᵀ g)");
  explain_op(cases, "layer.decoder_layer",
             "as the encoder layer with three sublayers: causal SelfAttn(y), CrossAttn(y, memory), FFN",
             "chain rule; memory collects the gradient of the cross-attention's keys and values");
  explain_op(cases, "model.seq2seq",
             "logits = Decoder(Embed(tgt) + pos, Encoder(Embed(src) + pos)) · E_outᵀ;  L = cross_entropy(logits, "
             "tgt_out, ε = 0.1)",
             "backward() walks the whole graph; every parameter's gradient is checked against central differences");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
