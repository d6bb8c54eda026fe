// f64_decoder_only.cpp — GPT from the translator's parts (gpt/decoder_only.h), in float64: its parameters are the
// decoder half of the Seq2Seq's with no encoder_attn; position i cannot see a later token; the two paths (fused
// kernels, the paper's chain) give the same logits, loss and gradients for every attention kind that can be
// causal (all of them); one step at a time on the KV cache gives what the whole prefix gives at its last position.
#include <doctest/doctest.h>

#include <set>

#include "../model/two_paths_support.h"
#include "autograd/graph.h"
#include "gpt/decoder_only.h"
#include "util/error.h"

using namespace attnlab;
using namespace attnlab::testing;

namespace {

ModelConfig gpt_config(AttentionKind kind, NormPlacement norm, ComputePath path) {
  ModelConfig m = path_config({kind, false, norm}, path);
  m.src_vocab = m.tgt_vocab = 13;
  m.tie_output = true;
  return m;
}

// Two blocks, the second padded: tokens and their targets (the same block shifted by one).
const TokenIds block_tokens{{2, 5}, {1, 4, 9, 12, 2, 1, 5, 7, 0, 0}};
const TokenIds block_targets{{2, 5}, {4, 9, 12, 2, 1, 5, 7, 2, 0, 0}};

PathResult run_gpt(AttentionKind kind, NormPlacement norm, ComputePath path) {
  Generator init(20171206);
  DecoderOnly model(gpt_config(kind, norm, path), init);
  PathResult r;
  {
    NoGradGuard no_graph;
    ForwardContext eval;
    Tensor logits = model.logits(block_tokens, eval);                   // [B, T, V]
    r.logits.assign(logits.data(), logits.data() + logits.numel());
  }
  Generator dropout(7);
  ForwardContext training;
  training.training = true;
  training.generator = &dropout;
  Tensor loss = model.loss(block_tokens, block_targets, real(0.1), training);   // [1], dropout on
  loss.backward();
  r.loss = loss.item();
  record_gradients(model, r);
  return r;
}

}  // namespace

TEST_CASE("the decoder-only model's parameters are the decoder half of the Seq2Seq's, without encoder_attn") {
  Generator init(1);
  ModelConfig c = gpt_config(AttentionKind::scaled_dot, NormPlacement::pre, ComputePath::fused);
  DecoderOnly tied(c, init);
  std::set<std::string> names;
  for (const NamedParameter& p : tied.named_parameters()) names.insert(p.name);
  CHECK(names.count("decoder.embed_tokens.weight") == 1);
  CHECK(names.count("decoder.layers.1.self_attn.q_proj.weight") == 1);
  CHECK(names.count("decoder.layers.0.ffn.linear1.weight") == 1);
  CHECK(names.count("decoder.layer_norm.weight") == 1);               // pre-LN's final norm
  CHECK(names.count("output_projection.weight") == 0);                // tied to the embeddings
  for (const std::string& name : names) {
    CHECK(name.rfind("decoder.", 0) == 0);                            // no encoder at all
    CHECK(name.find("encoder_attn") == std::string::npos);            // and no cross-attention
  }
  c.tie_output = false;
  DecoderOnly untied(c, init);
  CHECK(untied.parameter_count() == tied.parameter_count() + c.tgt_vocab * c.d_model);
}

TEST_CASE("in the decoder-only model position i cannot see a later token") {
  Generator init(3);
  DecoderOnly model(gpt_config(AttentionKind::scaled_dot, NormPlacement::post, ComputePath::fused), init);
  NoGradGuard no_graph;
  ForwardContext eval;
  const TokenIds a{{1, 5}, {1, 4, 9, 12, 5}}, b{{1, 5}, {1, 4, 9, 7, 8}};   // the same up to position 2
  const Tensor la = model.logits(a, eval), lb = model.logits(b, eval);        // [1, 5, V]
  const int64_t V = la.size(2);
  for (int64_t i = 0; i < 3 * V; ++i) CHECK(la.data()[i] == doctest::Approx(lb.data()[i]).epsilon(1e-14));
  double moved = 0;                                                          // … and a later position does change
  for (int64_t i = 3 * V; i < 5 * V; ++i) moved = std::max(moved, std::abs(double(la.data()[i] - lb.data()[i])));
  CHECK(moved > 1e-3);
}

TEST_CASE("both paths give the same logits, loss and gradients for the decoder-only model, every kind, 1e-12") {
  constexpr double tolerance = 1e-12;
  for (AttentionKind kind : attention_kinds()) {
    for (NormPlacement norm : {NormPlacement::post, NormPlacement::pre}) {
      CAPTURE(name_of(kind));
      CAPTURE(name_of(norm));
      const PathResult fused = run_gpt(kind, norm, ComputePath::fused);
      const PathResult paper = run_gpt(kind, norm, ComputePath::paper);
      CHECK(relative_difference(fused.logits, paper.logits) <= tolerance);
      CHECK(std::abs(fused.loss - paper.loss) <= tolerance * std::abs(paper.loss));
      REQUIRE(fused.names == paper.names);
      for (size_t p = 0; p < fused.names.size(); ++p) {
        CAPTURE(fused.names[p]);
        CHECK(relative_difference(fused.gradients[p], paper.gradients[p]) <= tolerance);
      }
    }
  }
  // The comparison can fail: another kind's model from the same seed differs far beyond the tolerance.
  const PathResult a = run_gpt(AttentionKind::scaled_dot, NormPlacement::post, ComputePath::fused);
  const PathResult b = run_gpt(AttentionKind::additive, NormPlacement::post, ComputePath::paper);
  CHECK(relative_difference(a.logits, b.logits) > 1e-3);
}

TEST_CASE("generating on the KV cache gives the logits of the whole prefix at its last position, every kind") {
  const std::vector<int32_t> text{1, 4, 9, 12, 2, 1, 5, 7};
  for (AttentionKind kind : attention_kinds()) {
    for (ComputePath path : {ComputePath::fused, ComputePath::paper}) {
      CAPTURE(name_of(kind));
      CAPTURE(name_of(path));
      Generator init(5);
      DecoderOnly model(gpt_config(kind, NormPlacement::pre, path), init);
      NoGradGuard no_graph;
      ForwardContext eval;
      const TokenIds whole{{1, static_cast<int64_t>(text.size())}, text};
      const Tensor all = model.logits(whole, eval);                        // [1, T, V]
      const int64_t V = all.size(2);
      DecoderState state = model.start_generating(1, 2);                   // too small: the cache must grow
      double worst = 0;
      for (size_t t = 0; t < text.size(); ++t) {
        const Tensor step = model.step({Shape{1, 1}, {text[t]}}, state, eval);   // [1, V]
        for (int64_t v = 0; v < V; ++v) {
          worst = std::max(worst, std::abs(double(step.data()[v] - all.data()[static_cast<int64_t>(t) * V + v])));
        }
      }
      CHECK(worst < 1e-10);
    }
  }
}

TEST_CASE("a decoder-only model needs one vocabulary, and refuses a bad config naming its key") {
  Generator init(1);
  ModelConfig c = gpt_config(AttentionKind::scaled_dot, NormPlacement::post, ComputePath::fused);
  c.src_vocab = 11;
  CHECK_THROWS_WITH_AS(DecoderOnly(c, init), doctest::Contains("tokenizer.shared: true"), Error);
  c.src_vocab = c.tgt_vocab;
  c.heads = 3;
  CHECK_THROWS_WITH_AS(DecoderOnly(c, init), doctest::Contains("model.heads"), Error);
}
