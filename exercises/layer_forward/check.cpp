// check.cpp — encoder_layer_forward against the library's EncoderLayer::forward (src/model/transformer.cpp).
//
// The check builds an EncoderLayer (d_model 8, 2 heads, d_ff 16) for model.norm post, then pre, gives its two
// LayerNorms random γ and β (fresh ones are both γ = 1, β = 0, and one norm used twice would pass), and hands
// your function the layer's own modules as the parts: self_attn with the batch's padding mask bound in, ffn and
// the two norms, all in evaluation (dropout off). Your output must be the layer's forward() output. When it is not,
// the check wires the same parts the usual wrong ways and names yours if it is one of them.
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "check.h"
#include "exercise.h"
#include "model/transformer.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "post: h = LN_1(x + SelfAttn(x)), out = LN_2(h + FFN(h));  pre: h = x + SelfAttn(LN_1(x)), "
    "out = h + FFN(LN_2(h)) — LN_1 is self_attn_layer_norm, LN_2 final_layer_norm. The library: sublayer() and "
    "EncoderLayer::forward in src/model/transformer.cpp, Figure 1 in src/model/transformer.h.";
const std::string zero_hint =
    "Your output is all zeros (the shipped stub): fill in the TODO in exercises/layer_forward/exercise.cpp. ";

// How the same parts are wired: right, or in one of the usual wrong ways.
struct Wiring {
  bool pre_norm = false;
  bool attention_residual = true;                                    // x + SelfAttn(…), or SelfAttn(…) alone
  bool ffn_reads_input = false;                                      // the FFN sublayer reads x instead of h
  bool one_norm = false;                                             // LN_1 in both sublayers
};

Tensor wired(const Tensor& x, const EncoderLayerParts& parts, const Wiring& w) {
  const LayerPart& second_norm = w.one_norm ? parts.self_attn_layer_norm : parts.final_layer_norm;
  auto stream_plus = [&](const Tensor& s) { return w.attention_residual ? add(x, s) : s; };
  if (w.pre_norm) {
    const Tensor h = stream_plus(parts.self_attention(parts.self_attn_layer_norm(x)));    // [B, T, d]
    return add(h, parts.feed_forward(second_norm(w.ffn_reads_input ? x : h)));
  }
  const Tensor h = parts.self_attn_layer_norm(stream_plus(parts.self_attention(x)));      // [B, T, d]
  return second_norm(add(h, parts.feed_forward(w.ffn_reads_input ? x : h)));
}

std::vector<Mistake> usual_mistakes(const Tensor& x, const EncoderLayerParts& parts) {
  const bool pre = parts.pre_norm;
  const std::string placement = pre ? "pre" : "post";
  return {
      {"residual_missing", "yours has no residual connection around the attention: x + SelfAttn(…) is missing its x",
       wired(x, parts, {pre, false, false, false}),
       "each sublayer's output is added to its input: " +
           std::string(pre ? "h = x + SelfAttn(LN_1(x))" : "h = LN_1(x + SelfAttn(x))") +
           ". The residual keeps the layer's input in its output, and gives gradients a path around the sublayer."},
      {"norm_misplaced",
       std::string("yours is the ") + (pre ? "post" : "pre") + "-norm layer, and this one is " + placement + "-norm",
       wired(x, parts, {!pre, true, false, false}),
       pre ? "pre-norm normalises what a sublayer reads and adds its output to the stream unnormalised: "
             "h = x + SelfAttn(LN_1(x)), out = h + FFN(LN_2(h)). layer.pre_norm is true here."
           : "post-norm (the paper) adds the sublayer's output to its input and normalises the sum: "
             "h = LN_1(x + SelfAttn(x)), out = LN_2(h + FFN(h)). layer.pre_norm is false here."},
      {"ffn_on_input", "yours feeds the feed-forward the layer's input x instead of h, the attention sublayer's result",
       wired(x, parts, {pre, true, true, false}),
       "the sublayers run one after the other: the feed-forward reads h, what the attention sublayer made of x — " +
           std::string(pre ? "out = h + FFN(LN_2(h))" : "out = LN_2(h + FFN(h))") +
           ". Fed x, the FFN never sees what attention gathered."},
      {"one_norm_twice", "yours uses self_attn_layer_norm in both sublayers",
       wired(x, parts, {pre, true, false, true}),
       "each sublayer has its own LayerNorm with its own γ and β: self_attn_layer_norm (LN_1) for the attention, "
       "final_layer_norm (LN_2) for the feed-forward."},
  };
}

// Random γ and β, so that the two norms differ from each other and from the identity.
void randomise(LayerNorm& norm, Generator& gen) {
  const Tensor gamma = Tensor::randn(norm.weight.shape(), gen, 0.5), beta = Tensor::randn(norm.bias.shape(), gen, 0.5);
  for (int64_t i = 0; i < gamma.numel(); ++i) {
    norm.weight.data()[i] = 1 + gamma.data()[i];                     // γ ≈ 1 ± 0.5
    norm.bias.data()[i] = beta.data()[i];                            // β ≈ 0 ± 0.5
  }
}

struct Case {
  const char* what;
  bool pre_norm;
  std::vector<int64_t> lengths;                                      // real tokens per sentence, then padding
  int64_t T;
};

void check_case(const Case& c) {
  ModelConfig config;
  config.d_model = 8;
  config.heads = 2;
  config.d_ff = 16;
  config.dropout = 0.1;                                              // there, but off: ctx.training is false
  config.norm = c.pre_norm ? NormPlacement::pre : NormPlacement::post;
  Generator init(21);
  EncoderLayer layer(config, "encoder.layers.0", init);
  randomise(layer.self_attn_layer_norm, init);
  randomise(layer.final_layer_norm, init);

  const int64_t B = static_cast<int64_t>(c.lengths.size());
  Generator gen(4);
  const Tensor x = Tensor::randn({B, c.T, config.d_model}, gen);     // [B, T, d_model]
  const AttentionMask mask = make_length_mask(c.lengths, c.T, c.T, /*causal=*/false);
  ForwardContext ctx;                                                // evaluation: no dropout
  NoGradGuard no_graph;
  const Tensor expected = layer.forward(x, mask, ctx);               // [B, T, d_model]

  const EncoderLayerParts parts{
      [&](const Tensor& in) { return layer.self_attn.forward(in, in, mask, ctx); },
      [&](const Tensor& in) { return layer.self_attn_layer_norm.forward(in); },
      [&](const Tensor& in) { return layer.ffn.forward(in, ctx); },
      [&](const Tensor& in) { return layer.final_layer_norm.forward(in); },
      c.pre_norm};
  const Tensor yours = encoder_layer_forward(x, parts);

  std::vector<std::string> input{std::string("case: ") + c.what};
  for (const std::string& line : tensor_lines("x", x)) input.push_back(line);
  input.push_back("(rows are positions, sentence after sentence: row b · T + t is token t of sentence b)");
  input.push_back("the parts: the library's EncoderLayer (d_model 8, 2 heads, d_ff 16), its two LayerNorms given "
                  "random γ and β");
  diagnose(expected, yours, usual_mistakes(x, parts), input);
  expect_same("the layer's output [B, T, d_model]", expected, yours, {1e-9, 1e-9}, input,
              all_zero(yours) ? zero_hint + hint : hint);
}

void check() {
  check_case({"post-norm (the paper), 2 sentences of 3 tokens, the second padded after 2", false, {3, 2}, 3});
  check_case({"pre-norm, 1 sentence of 5 tokens", true, {5}, 5});
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("layer_forward", attnlab::exercises::hint, attnlab::exercises::check);
}
