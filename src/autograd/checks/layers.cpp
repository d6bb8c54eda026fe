// checks/layers.cpp — gradient checks for whole modules: every nn layer, the encoder and decoder layers, and a
// tiny Seq2Seq model through its loss, each differentiated with respect to its inputs *and* its parameters.
//
// The op checks (the other files here) prove each backward function on its own; these prove that the modules
// wire the ops together correctly — a parameter that is used but never receives its gradient, a residual
// connection that drops a term, a mask that lets gradient leak — by comparing every parameter's analytic
// gradient with central differences.
//
// How a module becomes a GradcheckCase: the module is built once, from a fixed seed, and kept alive by a
// shared_ptr that both functions capture. make_inputs returns {the float inputs…, every parameter handle from
// named_parameters()}; apply runs the module's forward and ignores the parameter inputs, because the module
// holds the very same handles and the checker nudges their numbers in place. make_inputs clears the
// parameters' gradients first, so a case can be run more than once.
//
// Each checked number costs two forward passes, so the sizes are tiny.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "model/masks.h"
#include "model/transformer.h"
#include "nn/embedding.h"
#include "nn/layers.h"
#include "nn/linear.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

constexpr uint64_t module_seed = 20170612;  // the day "Attention Is All You Need" appeared on arXiv

// Appends every parameter of `module` to `inputs`, after clearing their gradients from any earlier run.
std::vector<Tensor> with_parameters(std::vector<Tensor> inputs, const Module& module) {
  module.zero_grad();
  for (const NamedParameter& p : module.named_parameters()) inputs.push_back(p.tensor);
  return inputs;
}

// A case for a module whose float inputs have the given shapes; `forward` receives the module and those inputs.
template <typename M>
GradcheckCase module_case(std::string name, std::string what, std::shared_ptr<M> module, std::vector<Shape> shapes,
                          std::function<Tensor(M&, const std::vector<Tensor>&)> forward) {
  return {std::move(name), std::move(what),
          [module, shapes](Generator& gen) {
            std::vector<Tensor> inputs;
            for (const Shape& shape : shapes) inputs.push_back(Tensor::randn(shape, gen));
            return with_parameters(std::move(inputs), *module);
          },
          [module, forward](const std::vector<Tensor>& in) { return forward(*module, in); }};
}

// The small Transformer every layer and model case below uses (d_model 4, 2 heads: d_k = 2).
ModelConfig tiny_config(const std::string& norm) {
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

std::vector<GradcheckCase> layer_checks() {
  std::vector<GradcheckCase> cases;
  Generator init(module_seed);
  ForwardContext eval;  // not training: dropout off (it is 0 anyway)

  // ---- nn layers ----
  cases.push_back(module_case<Linear>("layer.linear", "x [2, 3, 3] → [2, 3, 4], W and b",
                                      std::make_shared<Linear>(3, 4, init), {{2, 3, 3}},
                                      [](Linear& m, const std::vector<Tensor>& in) { return m.forward(in[0]); }));

  // The table is differentiated; the ids are fixed, repeat (scatter-add) and leave row 1 unused (zero gradient).
  const TokenIds ids{{2, 3}, {0, 2, 2, 4, 0, 3}};
  cases.push_back(module_case<Embedding>("layer.embedding", "ids [2, 3], table [5, 3], × √d",
                                         std::make_shared<Embedding>(5, 3, init), {},
                                         [ids](Embedding& m, const std::vector<Tensor>&) { return m.forward(ids); }));

  // 4 positions of a 5-row table: the last row is unused and must get a zero gradient.
  cases.push_back(module_case<PositionalEncoding>(
      "layer.positional_learned", "x [2, 4, 3] + P[0:4], max_len 5",
      std::make_shared<PositionalEncoding>(PositionalKind::learned, 3, 5, init), {{2, 4, 3}},
      [](PositionalEncoding& m, const std::vector<Tensor>& in) { return m.forward(in[0]); }));

  cases.push_back(module_case<LayerNorm>("layer.layer_norm", "x [2, 3, 4], γ and β",
                                         std::make_shared<LayerNorm>(4), {{2, 3, 4}},
                                         [](LayerNorm& m, const std::vector<Tensor>& in) { return m.forward(in[0]); }));

  for (const char* activation : {"relu", "gelu"}) {
    cases.push_back(module_case<FeedForward>(
        "layer.feed_forward", std::string(activation) + ", 4 → 6 → 4",
        std::make_shared<FeedForward>(4, 6, parse_activation(activation), 0.0, init), {{2, 3, 4}},
        [eval](FeedForward& m, const std::vector<Tensor>& in) mutable { return m.forward(in[0], eval); }));
  }

  // ---- Transformer layers, on a padded batch: sentence 1 is one token shorter in both languages ----
  const TokenIds src{{2, 4}, {4, 5, 6, 2, 4, 6, 2, 0}};  // [B, S]
  const TokenIds tgt{{2, 3}, {1, 5, 4, 1, 6, 0}};        // [B, T], bos first
  // Both norm placements, and without residual connections (model.residual: false, an ablation) in both.
  for (const std::string wiring : {"post-LN", "pre-LN", "post-LN, no residual", "pre-LN, no residual"}) {
    ModelConfig c = tiny_config(wiring.substr(0, wiring.find('-')));           // "post" or "pre"
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
  }

  // ---- the whole model, through its training loss ----
  // vocabulary 7, d_model 8, 2 heads, d_ff 16, one encoder and one decoder layer, sinusoidal positions.
  ModelConfig c = tiny_config("post");
  c.d_model = 8;
  c.d_ff = 16;
  const TokenIds tgt_out{{2, 3}, {5, 4, 2, 6, 2, 0}};    // tgt shifted left, eos, pad (ignored by the loss)
  cases.push_back(module_case<Seq2Seq>(
      "model.seq2seq", "loss, smoothing 0.1, every parameter", std::make_shared<Seq2Seq>(c, init), {},
      [src, tgt, tgt_out, eval](Seq2Seq& m, const std::vector<Tensor>&) mutable {
        Tensor logits = m.forward(src, tgt, eval);                           // [B, T, V]
        return cross_entropy(logits, tgt_out, real(0.1), pad_id);            // [1]
      }));
  explain_op(cases, "layer.linear", "y = x Wᵀ + b   (W [out, in] as in PyTorch)",
             "∂x = g W,  ∂W = Σ_rows gᵀ x,  ∂b = Σ_rows g");
  explain_op(cases, "layer.embedding", "y = E[ids] · √d_model   (§3.4)",
             "∂E[id_p] += √d_model · g[p]   (scatter-add)");
  explain_op(cases, "layer.positional_learned", "y[b, t] = x[b, t] + P[t]   (a learned table of max_len rows)",
             "∂x = g,  ∂P[t] += Σ_b g[b, t];  rows beyond the sentence get 0");
  explain_op(cases, "layer.layer_norm", "y = γ ⊙ (x − μ) / √(σ² + ε) + β   per row",
             "as the layer_norm op, γ and β included");
  explain_op(cases, "layer.feed_forward",
             "FFN(x) = linear2(act(linear1(x))),  d_model → d_ff → d_model,  act = relu or gelu",
             "chain rule: ∂h = g W_2, ∂pre = ∂h ⊙ act'(pre), ∂x = ∂pre W_1; weight gradients as layer.linear");
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

}  // namespace attnlab::inline ATTNLAB_PRECISION
