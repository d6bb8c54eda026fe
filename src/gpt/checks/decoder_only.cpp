// gpt/checks/decoder_only.cpp — the gradient check of the decoder-only model (GPT) through its next-token loss:
// L = cross_entropy(logits(b_0 … b_{T−1}), b_1 … b_T), differentiated with respect to every parameter.
#include "gpt/decoder_only.h"

#include <memory>
#include <vector>

#include "autograd/ops.h"
#include "gpt/checks.h"
#include "nn/checks.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<GradcheckCase> decoder_only_checks() {
  std::vector<GradcheckCase> cases;
  ForwardContext eval;       // not training: dropout off (it is 0 anyway)
  Generator init(49);        // its own weights: the draws of every other case stay as they were
  // vocabulary 7, d_model 8, 2 heads (d_k = 4), d_ff 16, one decoder layer, pre-LN, E tied to the output layer.
  ModelConfig gpt;
  gpt.src_vocab = gpt.tgt_vocab = 7;
  gpt.d_model = 8;
  gpt.heads = 2;
  gpt.d_ff = 16;
  gpt.encoder_layers = 1;
  gpt.decoder_layers = 1;
  gpt.dropout = 0;
  gpt.norm = NormPlacement::pre;
  gpt.tie_output = true;
  const TokenIds block{{2, 3}, {1, 5, 4, 6, 2, 0}};         // b_0 … b_{T−1}, row 1 padded
  const TokenIds next{{2, 3}, {5, 4, 2, 2, 0, 0}};          // b_1 … b_T: the shift by one, pad ignored
  cases.push_back(module_case<DecoderOnly>(
      "model.decoder_only", "next-token loss, pre-LN, tied output, smoothing 0.1, every parameter",
      std::make_shared<DecoderOnly>(gpt, init), {},
      [block, next, eval](DecoderOnly& m, const std::vector<Tensor>&) mutable {
        return m.loss(block, next, real(0.1), eval);                        // [1]
      }));
  explain_op(cases, "model.decoder_only",
             "logits = Decoder(Embed(t) + pos) · Eᵀ (no encoder, no cross-attention, E tied);  L = "
             "cross_entropy(logits, t shifted by one, ε = 0.1)",
             "backward() walks the whole graph; E's gradient sums the embedding's and the output layer's");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
