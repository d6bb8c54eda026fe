// f64_golden.cpp — attnlab's whole Transformer reproduces PyTorch: logits, loss and every gradient (float64).
//
// The gradient checks prove each op right on its own; this test proves they are put together right — the
// attention, the masks, the norms in the right places, √d_model, the positions, the loss — the way llm.c
// guards its model. tools/make_golden.py builds the same model in PyTorch (2 + 2 layers, d_model 32, 4 heads,
// relu, dropout 0, sinusoidal positions, separate vocabularies) with random weights, runs one padded batch with
// label smoothing 0.1, and writes, in float64, into tests/model/golden/transformer_{post,pre}.safetensors:
//     <parameter name>        every weight, under attnlab's own name
//     grad.<parameter name>   ∂loss/∂weight from PyTorch's backward
//     input.src, input.tgt_in, input.targets    the token ids (stored as F64)
//     output.logits [B, T, V], output.loss [1]
//     __metadata__            the model config, torch's version and the command that regenerates the file
// Here attnlab builds its Seq2Seq from that config, takes PyTorch's weights by name, runs forward, cross_entropy
// and backward, and must agree everywhere to |attnlab − PyTorch| ≤ 1e-9 + 1e-9 · |PyTorch|. Both sides compute
// in float64, so the agreement observed is about 1e-15: a real mistake shows up as many orders of magnitude more.
// The files are committed: the test never needs Python, and a missing file is a failure, not a skip. The
// comparison itself is golden_support.h; the decoder-only model's golden test is tests/gpt/f64_golden.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "golden_support.h"
#include "model/transformer.h"
#include "util/error.h"

using namespace attnlab;
using namespace attnlab::testing;

namespace {
// The golden file of a norm placement ("post", "pre").
std::string golden_path(const std::string& norm) {
  return std::string(ATTNLAB_SOURCE_DIR) + "/tests/model/golden/transformer_" + norm + ".safetensors";
}

// Builds attnlab's model from the file, copies PyTorch's weights in by name, runs forward, the loss and backward,
// and compares. `change_weights`, when given, is applied after copying (to show the comparison can fail).
template <typename Change>
GoldenRun run_golden(const Golden& golden, Change&& change_weights) {
  GoldenRun run;
  Generator init(0);                                   // any initial weights: every one is overwritten
  Seq2Seq model(config_from(golden), init);
  if (!take_weights(golden, model, run)) return run;
  change_weights(model);
  const TokenIds src = token_ids(golden, "input.src");                 // [B, S]
  const TokenIds tgt_in = token_ids(golden, "input.tgt_in");           // [B, T], bos first
  const TokenIds targets = token_ids(golden, "input.targets");         // [B, T], eos last, pad after
  model.zero_grad();
  ForwardContext ctx;                                                  // not training: no dropout (it is 0 anyway)
  Tensor logits = model.forward(src, tgt_in, ctx);                     // [B, T, V]
  Tensor loss = cross_entropy(logits, targets, label_smoothing_of(golden), pad_id);   // [1]
  loss.backward();
  compare_outputs(golden, model, logits, loss, run);
  return run;
}

GoldenRun run_golden(const Golden& golden) {
  return run_golden(golden, [](Seq2Seq&) {});
}

void check_against_pytorch(NormPlacement norm) {
  REQUIRE(sizeof(real) == 8);
  const std::string path = golden_path(name_of(norm));
  INFO("golden file ", path, " (regenerate: /usr/bin/python3 tools/make_golden.py)");
  Golden golden = load_golden(path);                                  // missing file: an error, the test fails
  REQUIRE(metadata_value(golden, "norm") == name_of(norm));
  check_golden_run(golden, run_golden(golden), name_of(norm) + "-LN");
}

}  // namespace

TEST_CASE("the post-LN Transformer reproduces PyTorch's logits, loss and every gradient") {
  check_against_pytorch(NormPlacement::post);
}

TEST_CASE("the pre-LN Transformer reproduces PyTorch's logits, loss and every gradient") {
  check_against_pytorch(NormPlacement::pre);
}

// A test that could not fail is not a test: these two show that one part in a million is enough to fail it.
TEST_CASE("the golden comparison notices one weight changed by one part in a million") {
  Golden golden = load_golden(golden_path("post"));
  GoldenRun run = run_golden(golden, [](Seq2Seq& model) {
    for (const NamedParameter& p : model.named_parameters()) {
      if (p.name == "decoder.layers.1.encoder_attn.k_proj.weight") {
        Tensor weight = p.tensor;
        weight.data()[5] *= 1 + 1e-6;                              // one number of 1,024
      }
    }
  });
  REQUIRE(run.logits_loss.size() == 2);
  CHECK(run.logits_loss[0].name == "output.logits");
  CHECK(run.logits_loss[0].outside > 0);                           // some logits move by more than 1e-9
}

TEST_CASE("the golden comparison notices one gradient number off by one part in a million") {
  Golden golden = load_golden(golden_path("pre"));
  const std::string name = "encoder.layers.0.ffn.linear1.weight";
  Tensor expected = golden.gradients.at(name);
  const int64_t largest = std::max_element(expected.data(), expected.data() + expected.numel(),
                                           [](real a, real b) { return std::abs(a) < std::abs(b); }) -
                          expected.data();
  expected.data()[largest] *= 1 + 1e-6;                            // as if attnlab's backward were this far off
  GoldenRun run = run_golden(golden);
  std::vector<std::string> failing;
  for (const Agreement& a : run.gradients) {
    if (a.outside > 0) failing.push_back(a.name);
  }
  CHECK(failing == std::vector<std::string>{"grad." + name});
  CHECK(run.logits_loss.at(0).outside == 0);
}

TEST_CASE("a golden file that is missing is an error naming it, not a skipped test") {
  CHECK_THROWS_WITH_AS(load_golden(golden_path("no-such-norm")), doctest::Contains("no-such-norm"), Error);
}
