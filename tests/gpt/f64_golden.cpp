// f64_golden.cpp — the decoder-only model (GPT, gpt/decoder_only.h) reproduces PyTorch: logits, loss and every
// gradient (float64), on both paths (the fused kernels and the paper's chain).
//
// tools/make_golden.py decoder_only builds the same model in PyTorch (decoder layers without cross-attention, a
// causal mask, pre-LN, the output layer tied to the embedding) with random weights, runs two padded blocks with
// their next tokens (the block shifted by one) and label smoothing 0.1, and writes tests/gpt/golden/
// decoder_only_pre.safetensors: the weights, grad.<name>, input.tokens, input.targets, output.logits, output.loss.
// The comparison is the encoder–decoder's (tests/model/golden_support.h, tests/model/f64_golden.cpp).
#include <doctest/doctest.h>

#include <string>

#include "../model/golden_support.h"
#include "autograd/graph.h"
#include "gpt/decoder_only.h"

using namespace attnlab;
using namespace attnlab::testing;

namespace {

// The same for the decoder-only model (gpt/decoder_only.h): its logits, and its own loss of the next token.
GoldenRun run_decoder_only_golden(const Golden& golden) {
  GoldenRun run;
  Generator init(0);
  DecoderOnly model(config_from(golden), init);
  if (!take_weights(golden, model, run)) return run;
  const TokenIds tokens = token_ids(golden, "input.tokens");           // [B, T] b_0 … b_{T−1}
  const TokenIds targets = token_ids(golden, "input.targets");         // [B, T] b_1 … b_T, pad after
  model.zero_grad();
  ForwardContext ctx;
  Tensor logits;
  {
    NoGradGuard no_graph;
    logits = model.logits(tokens, ctx);                                // [B, T, V]
  }
  Tensor loss = model.loss(tokens, targets, label_smoothing_of(golden), ctx);   // [1], by model.path
  loss.backward();
  compare_outputs(golden, model, logits, loss, run);
  return run;
}

}  // namespace

TEST_CASE("the decoder-only model (pre-LN, tied) reproduces PyTorch's logits, loss and every gradient, both paths") {
  REQUIRE(sizeof(real) == 8);
  const std::string path = std::string(ATTNLAB_SOURCE_DIR) + "/tests/gpt/golden/decoder_only_pre.safetensors";
  INFO("golden file ", path, " (regenerate: /usr/bin/python3 tools/make_golden.py decoder_only)");
  Golden golden = load_golden(path);
  REQUIRE(metadata_value(golden, "task") == "language_model");
  for (const char* path_word : {"fused", "paper"}) {                  // model.path: both must agree with PyTorch
    golden.metadata["path"] = path_word;
    check_golden_run(golden, run_decoder_only_golden(golden), std::string("decoder-only, ") + path_word);
  }
  // The comparison can fail: a weight one part in a million off moves the logits beyond the tolerance.
  golden.weights.at("decoder.layers.1.self_attn.k_proj.weight").data()[5] *= 1 + 1e-6;
  golden.metadata["path"] = "fused";
  const GoldenRun changed = run_decoder_only_golden(golden);
  REQUIRE(changed.logits_loss.size() == 2);
  CHECK(changed.logits_loss[0].outside > 0);
}
