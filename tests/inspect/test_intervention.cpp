// test_intervention.cpp — experiments on a model while it translates (src/model/intervention.h, the specs of
// src/run/intervention_spec.h, the pictures of src/inspect/maps/intervention_maps.h).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "autograd/graph.h"
#include "decode/greedy.h"
#include "decode/translation_log_prob.h"
#include "inspect/maps/intervention_maps.h"
#include "inspect/maps/trace.h"
#include "inspect_test_support.h"
#include "run/intervention_spec.h"
#include "test_support.h"
#include "util/error.h"

using namespace attnlab;

namespace {

const std::string sentence = "a happy girl does not go .";

LoadedRun small_run(AttentionKind cross_kind = AttentionKind::scaled_dot, uint64_t seed = 11) {
  testing::SmallRun shape{AttentionKind::scaled_dot, cross_kind, {sentence, "une fille heureuse ne va pas ."}};
  shape.seed = seed;
  return testing::small_run(shape);
}

std::vector<std::vector<real>> parameter_values(const Module& model) {
  std::vector<std::vector<real>> values;
  for (const Tensor& p : model.parameters()) values.emplace_back(p.data(), p.data() + p.numel());
  return values;
}

std::vector<real> logits_of(Seq2Seq& model, const std::vector<int32_t>& source, const std::vector<int32_t>& output) {
  NoGradGuard no_graph;
  ForwardContext ctx;
  std::vector<int32_t> input{bos_id};
  input.insert(input.end(), output.begin(), output.end());
  const TokenIds src{Shape{1, int64_t(source.size())}, source}, tgt{Shape{1, int64_t(input.size())}, input};
  const Tensor logits = model.decoder_logits(tgt, model.encode(src, ctx), src, ctx);   // [1, T, V]
  return {logits.data(), logits.data() + logits.numel()};
}

const TracedTensor& stage(const SentenceTrace& trace, const std::string& name) {
  for (const TracedTensor& t : trace.decoder) {
    if (t.name == name) return t;
  }
  throw Error("no stage " + name);
}

Intervention switching_off(std::vector<HeadRef> heads) {
  Intervention intervention;
  intervention.switched_off = std::move(heads);
  return intervention;
}

}  // namespace

TEST_CASE("no intervention changes nothing, bit for bit: the translation, its logits, its maps, the weights") {
  LoadedRun run = small_run();
  const std::vector<int32_t> source = encode_text(run, *run.tokenizers.src, sentence, "test");
  DecodeConfig decode;
  const auto plain = greedy_decode_cached(*run.model, pad_batch({source}), decode)[0];
  const std::vector<real> plain_logits = logits_of(*run.model, source, plain);
  const AttentionPicture plain_picture = record_attention(run, sentence);
  const auto weights = parameter_values(*run.model);
  {
    const InterventionScope scope(*run.model, Intervention{});
    CHECK(greedy_decode_cached(*run.model, pad_batch({masked_source_ids(Intervention{}, source, "test")}), decode)[0] ==
          plain);
    CHECK(logits_of(*run.model, source, plain) == plain_logits);
  }
  const AttentionPicture picture = record_intervention(run, sentence, Intervention{});
  CHECK(picture.target_text == plain_picture.target_text);
  REQUIRE(picture.maps.size() == plain_picture.maps.size());
  for (size_t m = 0; m < picture.maps.size(); ++m) CHECK(picture.maps[m].weights == plain_picture.maps[m].weights);
  CHECK(parameter_values(*run.model) == weights);
}

TEST_CASE("a switched-off head's term leaves W_O's sum: out = plain out − head_h W_O,hᵀ, and the weights come back") {
  for (AttentionKind kind : {AttentionKind::scaled_dot, AttentionKind::additive, AttentionKind::linear}) {
    CAPTURE(kind);
    LoadedRun run = small_run(kind);
    const std::vector<int32_t> source = encode_text(run, *run.tokenizers.src, sentence, "test");
    const std::vector<int32_t> target = {5, 6, 7};
    const auto weights = parameter_values(*run.model);
    const SentenceTrace plain = trace_sentence(*run.model, source, target);
    SentenceTrace ablated;
    {
      const InterventionScope scope(*run.model, switching_off({{AttentionUse::cross, 1, 1}}));   // the last layer
      ablated = trace_sentence(*run.model, source, target);
    }
    CHECK(parameter_values(*run.model) == weights);
    // The last layer's cross-attention reads the same queries and keys: its heads' contexts are unchanged …
    const Tensor& context = stage(plain, "decoder.layers.1.encoder_attn.context").value;   // [1, h, T, d_v]
    CHECK(stage(ablated, "decoder.layers.1.encoder_attn.context").value.values() == context.values());
    // … and its output lost head 1's term, context_1 W_O,1ᵀ, W_O [d, h · d_v] being the model's.
    Tensor W_O;
    for (const NamedParameter& p : run.model->named_parameters()) {
      if (p.name == "decoder.layers.1.encoder_attn.out_proj.weight") W_O = p.tensor;
    }
    const Tensor& out = stage(plain, "decoder.layers.1.encoder_attn.out_proj").value;        // [1, T, d]
    const Tensor& out_off = stage(ablated, "decoder.layers.1.encoder_attn.out_proj").value;
    const int64_t T = out.size(1), d = out.size(2), d_v = context.size(3), h = 1;
    for (int64_t t = 0; t < T; ++t) {
      for (int64_t r = 0; r < d; ++r) {
        double term = 0;                                                      // (context_h W_O,hᵀ)[t, r]
        for (int64_t c = 0; c < d_v; ++c) {
          term += double(context.data()[(h * T + t) * d_v + c]) * double(W_O.data()[r * W_O.size(1) + h * d_v + c]);
        }
        CHECK(out_off.data()[t * d + r] == doctest::Approx(out.data()[t * d + r] - term).epsilon(1e-4));
      }
    }
  }
}

TEST_CASE("with heads switched off, the cached decoder steps, the full re-run and both paths agree") {
  LoadedRun run = small_run();
  const std::vector<int32_t> source = encode_text(run, *run.tokenizers.src, sentence, "test");
  DecodeConfig decode;
  const auto plain = greedy_decode_cached(*run.model, pad_batch({source}), decode)[0];
  const InterventionScope scope(*run.model, switching_off({{AttentionUse::cross, 0, 0}, {AttentionUse::cross, 1, 1},
                                                           {AttentionUse::encoder_self, 1, 0},
                                                           {AttentionUse::decoder_self, 0, 1}}));
  for (ComputePath path : {ComputePath::paper, ComputePath::fused}) {
    run.model->use_compute_path(path);
    CHECK(greedy_decode_cached(*run.model, pad_batch({source}), decode) ==
          greedy_decode(*run.model, pad_batch({source}), decode));
  }
  const auto ablated = greedy_decode_cached(*run.model, pad_batch({source}), decode)[0];
  const std::vector<real> fused = logits_of(*run.model, source, ablated);
  run.model->use_compute_path(ComputePath::paper);
  const std::vector<real> paper = logits_of(*run.model, source, ablated);
  for (size_t i = 0; i < fused.size(); ++i) CHECK(fused[i] == doctest::Approx(paper[i]).epsilon(1e-4));
  CHECK(logits_of(*run.model, source, plain) != logits_of(*run.model, source, ablated));
}

TEST_CASE("a switched-off head's map is all zeros, and the maps it cannot reach are as before") {
  LoadedRun run = small_run();
  const AttentionPicture plain = record_attention(run, sentence, "", 1);
  const AttentionPicture picture = record_intervention(run, sentence, switching_off({{AttentionUse::cross, 1, 0}}), 1);
  for (const AttentionMapRecord& map : picture.maps) {
    CAPTURE(map.name);
    const AttentionMapRecord* before = nullptr;
    for (const AttentionMapRecord& p : plain.maps) before = p.name == map.name ? &p : before;
    REQUIRE(before != nullptr);
    const int64_t cells = map.queries * map.keys;
    if (map.name != "decoder.layers.1.encoder_attn") {
      // What the last layer's cross-attention feeds comes after every other map; the translation may change, so
      // compare only when it did not.
      if (picture.target_text == plain.target_text) CHECK(map.weights == before->weights);
      continue;
    }
    for (int64_t i = 0; i < cells; ++i) CHECK(map.weights[static_cast<size_t>(i)] == 0);
    if (!map.value_norms.empty()) {
      for (int64_t i = 0; i < cells; ++i) CHECK(map.value_norms[static_cast<size_t>(i)] == 0);
    }
    double row = 0;                                                           // head 1 is still a distribution
    for (int64_t j = 0; j < map.keys; ++j) row += map.weights[static_cast<size_t>(cells + j)];
    CHECK(row == doctest::Approx(1));
  }
}

TEST_CASE("a masked source word is read as <unk>, as a word the vocabulary lacks is") {
  LoadedRun run = small_run();
  const std::vector<int32_t> source = encode_text(run, *run.tokenizers.src, sentence, "test");
  const std::vector<int32_t> unknown = encode_text(run, *run.tokenizers.src, "a zzz girl does not go .", "test");
  Intervention mask;
  mask.masked_source = {1};
  const std::vector<int32_t> masked = masked_source_ids(mask, source, "test");
  CHECK(masked == unknown);
  CHECK(masked != source);
  DecodeConfig decode;
  const auto output = greedy_decode_cached(*run.model, pad_batch({masked}), decode)[0];
  CHECK(translation_log_prob(*run.model, masked, output) == translation_log_prob(*run.model, unknown, output));
  const AttentionPicture picture = record_intervention(run, sentence, mask);
  CHECK(picture.source_unknown == std::vector<bool>{false, true, false, false, false, false, false});
  CHECK(picture.source_typed[1] == "happy");
}

TEST_CASE("a swapped layer holds the other model's numbers, only that layer, and only while the scope lives") {
  LoadedRun run = small_run(AttentionKind::scaled_dot, 11);
  const LoadedRun other = small_run(AttentionKind::scaled_dot, 12);
  LayerSwap swap{"decoder.layers.1", {}};
  for (const NamedParameter& p : other.model->named_parameters()) {
    if (p.name.rfind("decoder.layers.1.", 0) == 0) swap.parameters.push_back(p);
  }
  Intervention intervention;
  intervention.swaps = {swap};
  const auto mine = run.model->named_parameters(), theirs = other.model->named_parameters();
  const auto weights = parameter_values(*run.model);
  {
    const InterventionScope scope(*run.model, intervention);
    for (size_t i = 0; i < mine.size(); ++i) {
      CAPTURE(mine[i].name);
      const bool swapped = mine[i].name.rfind("decoder.layers.1.", 0) == 0;
      const std::vector<real> now(mine[i].tensor.data(), mine[i].tensor.data() + mine[i].tensor.numel());
      CHECK(now == (swapped ? std::vector<real>(theirs[i].tensor.data(), theirs[i].tensor.data() + theirs[i].tensor.numel())
                            : weights[i]));
    }
  }
  CHECK(parameter_values(*run.model) == weights);
}

TEST_CASE("a bad intervention is one clear error, and leaves the model as it was") {
  LoadedRun run = small_run();
  const auto weights = parameter_values(*run.model);
  CHECK_THROWS_WITH_AS(InterventionScope(*run.model, switching_off({{AttentionUse::cross, 0, 0}, {AttentionUse::cross, 0, 2}})),
                       "cross-attention has heads 0 … 1 (model.heads = 2), not 2", Error);
  CHECK(parameter_values(*run.model) == weights);
  CHECK_THROWS_WITH_AS(check_head(run.model->config(), {AttentionUse::encoder_self, 2, 0}),
                       "encoder self-attention has layers 0 … 1 (model.encoder_layers = 2), not 2", Error);
  CHECK_THROWS_WITH_AS(mask_source({5, 6, 7}, {3}),
                       "source position 3 is not in the sentence: it has 3 tokens (positions 0 … 2)", Error);
  Intervention wrong;
  wrong.swaps = {LayerSwap{"decoder.layers.0", {run.model->named_parameters()[0]}}};
  CHECK_THROWS_WITH_AS(InterventionScope(*run.model, wrong),
                       doctest::Contains("cannot swap decoder.layers.0: the model has"), Error);
}

TEST_CASE("specs: * stands for every layer or head, and a bad spec is named in its error") {
  LoadedRun run = small_run();
  const std::string run_dir = testing::fresh_directory("inspect", "intervention_specs").string();   // no checkpoint
  auto read = [&](std::vector<std::string> specs) { return read_interventions(specs, run, run_dir, "--intervene", true); };
  CHECK(read({"ablate:cross:*"}).switched_off.size() == 4);
  CHECK(read({"ablate:decoder:1.*"}).switched_off.size() == 2);
  const Intervention one = read({"ablate:encoder:*.1", "mask:source:3"});
  REQUIRE(one.switched_off.size() == 2);
  CHECK(one.switched_off[1].use == AttentionUse::encoder_self);
  CHECK(one.switched_off[1].layer == 1);
  CHECK(one.switched_off[1].head == 1);
  CHECK(one.masked_source == std::vector<int64_t>{3});
  CHECK(one.described == std::vector<std::string>{"head 1 of every encoder self-attention layer (2 heads) switched off (output zeroed)",
                                                  "source token 3 read as <unk>"});
  CHECK_THROWS_WITH_AS(read({"ablate:cross:0.0", "ablate:cross:0.5"}),
                       "--intervene ablate:cross:0.5: cross-attention has heads 0 … 1 (model.heads = 2), not 5", Error);
  CHECK_THROWS_WITH_AS(read({"mask:source:+1"}), "--intervene mask:source:+1: '+1' is not a source position number (0, 1, 2, …)", Error);
  CHECK_THROWS_WITH_AS(read({"ablate"}), "--intervene ablate: '' is not an attention: ablate:USE:L.H takes cross, encoder or decoder", Error);
  CHECK_THROWS_WITH_AS(read({"swap:decoder.1=latest"}), doctest::Contains("has no checkpoint yet"), Error);
  CHECK_THROWS_WITH_AS(read_interventions({"swap:decoder.1=/x.safetensors"}, run, run_dir, "\"interventions\":", false),
                       "\"interventions\": swap:decoder.1=/x.safetensors: '/x.safetensors' is not best, latest, "
                       "average or a step number of the run", Error);
  CHECK_THROWS_WITH_AS(masked_source_ids(read({"mask:source:7"}), {5, 6}, "input line 2"),
                       "mask:source:7: input line 2 has 2 source tokens (positions 0 … 1)", Error);
}
