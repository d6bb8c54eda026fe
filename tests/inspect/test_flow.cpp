// test_flow.cpp — where information flows (src/inspect/maps/flow.h): rollout, value norms, gradient attribution.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "inspect/maps/attention_maps.h"
#include "inspect/maps/flow.h"
#include "inspect_test_support.h"
#include "test_support.h"
#include "util/error.h"

using namespace attnlab;

namespace {

AttentionMapRecord hand_map(const std::string& type, int64_t layer, int64_t heads, int64_t queries, int64_t keys,
                            std::vector<double> weights) {
  AttentionMapRecord map;
  map.name = type + std::to_string(layer), map.type = type, map.layer = layer;
  map.heads = heads, map.queries = queries, map.keys = keys, map.weights = std::move(weights);
  return map;
}

// A run held in memory: word tokenizer, an untrained small model whose self- and cross-attention are `kind`
// (inspect_test_support.h).
LoadedRun small_run(AttentionKind self_kind, AttentionKind cross_kind) {
  return testing::small_run({self_kind, cross_kind, {"a happy girl does not go .", "une fille heureuse ne va pas ."}});
}

}  // namespace

TEST_CASE("rollout on a hand-made pair: rows sum to 1 and match the products worked out by hand") {
  // S = 2 source tokens, T = 2 decoder positions, one layer of each kind, one head (a second identical head
  // must not change the mean). Rows of the encoder map and of the cross map do not sum to 1 (local_p can do
  // that): rollout renormalises them first.
  const std::vector<AttentionMapRecord> maps = {
      hand_map("encoder_self", 0, 2, 2, 2, {0.3, 0.5, 0.2, 0.2, /* head 1 */ 0.3, 0.5, 0.2, 0.2}),
      hand_map("decoder_self", 0, 1, 2, 2, {1, 0, 0.5, 0.5}),
      hand_map("cross", 0, 1, 2, 2, {0.1, 0.3, 0, 0})};  // position 1 sees no source token
  const Rollout r = attention_rollout(maps, 2, 2);
  // Ā_enc = [[3/8, 5/8], [1/2, 1/2]]; Ã = 0.5 Ā + 0.5 I = [[11/16, 5/16], [1/4, 3/4]].
  CHECK(r.encoder[0] == doctest::Approx(11.0 / 16));
  CHECK(r.encoder[1] == doctest::Approx(5.0 / 16));
  CHECK(r.encoder[2] == doctest::Approx(0.25));
  CHECK(r.encoder[3] == doctest::Approx(0.75));
  // Decoder self: Ã = [[1, 0], [1/4, 3/4]]. Cross row 0: Ā = [1/4, 3/4], Ā·R_enc = [11/64 + 3/16, 5/64 + 9/16]
  // = [23/64, 41/64]; then R_src row 0 = 0.5 · that, R_tgt row 0 = 0.5 · [1, 0]. Row 1 saw nothing: unchanged.
  CHECK(r.decoder_target[0] == doctest::Approx(0.5));
  CHECK(r.decoder_target[1] == doctest::Approx(0));
  CHECK(r.decoder_source[0] == doctest::Approx(23.0 / 128));
  CHECK(r.decoder_source[1] == doctest::Approx(41.0 / 128));
  CHECK(r.decoder_target[2] == doctest::Approx(0.25));
  CHECK(r.decoder_target[3] == doctest::Approx(0.75));
  CHECK(r.decoder_source[2] == 0);
  CHECK(r.decoder_source[3] == 0);
  for (int64_t i = 0; i < 2; ++i) {
    CHECK(r.encoder[i * 2] + r.encoder[i * 2 + 1] == doctest::Approx(1));
    CHECK(r.decoder_target[i * 2] + r.decoder_target[i * 2 + 1] + r.decoder_source[i * 2] +
              r.decoder_source[i * 2 + 1] ==
          doctest::Approx(1));
  }
}

TEST_CASE("a map whose size does not fit the sentence is refused by name") {
  const std::vector<AttentionMapRecord> maps = {hand_map("encoder_self", 0, 1, 3, 3, std::vector<double>(9, 1.0 / 3))};
  CHECK_THROWS_WITH_AS(attention_rollout(maps, 2, 2), doctest::Contains("encoder_self0"), Error);
}

TEST_CASE("for every attention kind, the recorded sentence's rollout rows sum to 1 and value norms are α · ‖f‖ ≥ 0") {
  const std::vector<std::pair<AttentionKind, AttentionKind>> kinds = {
      {AttentionKind::scaled_dot, AttentionKind::scaled_dot}, {AttentionKind::additive, AttentionKind::additive},
      {AttentionKind::simplified, AttentionKind::simplified}, {AttentionKind::sagan, AttentionKind::sagan},
      {AttentionKind::linear, AttentionKind::linear},         {AttentionKind::external, AttentionKind::scaled_dot},
      {AttentionKind::local_m, AttentionKind::local_p},       {AttentionKind::hard, AttentionKind::hard}};
  for (const auto& [self_kind, cross_kind] : kinds) {
    const std::string self_name = name_of(self_kind);
    CAPTURE(self_name);
    LoadedRun run = small_run(self_kind, cross_kind);
    const AttentionPicture picture =
        record_attention(run, "a happy girl does not go .", "une fille heureuse ne va pas .");
    const int64_t S = 7, T = 8;
    for (int64_t i = 0; i < S; ++i) {
      double row = 0;
      for (int64_t j = 0; j < S; ++j) row += picture.rollout.encoder[i * S + j];
      CHECK(row == doctest::Approx(1).epsilon(1e-9));
    }
    for (int64_t t = 0; t < T; ++t) {
      double row = 0;
      for (int64_t j = 0; j < S; ++j) row += picture.rollout.decoder_source[t * S + j];
      for (int64_t u = 0; u < T; ++u) row += picture.rollout.decoder_target[t * T + u];
      CHECK(row == doctest::Approx(1).epsilon(1e-9));
      for (int64_t u = t + 1; u < T; ++u) CHECK(picture.rollout.decoder_target[t * T + u] == 0);  // causal
    }
    for (const AttentionMapRecord& map : picture.maps) {
      CAPTURE(map.name);
      REQUIRE(map.value_norms.size() == map.weights.size());
      for (size_t n = 0; n < map.weights.size(); ++n) {
        CHECK(map.value_norms[n] >= 0);
        if (map.weights[n] == 0) CHECK(map.value_norms[n] == 0);
      }
    }
  }
}

TEST_CASE("value norms are the weight times the length of W_O's slice times v, checked by hand for one entry") {
  LoadedRun run = small_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  const AttentionPicture picture =
      record_attention(run, "a happy girl does not go .", "une fille heureuse ne va pas .");
  const AttentionMapRecord& map = picture.maps.front();  // encoder.layers.0.self_attn
  // Recompute v = x W_Vᵀ + b for key 3 from the traced layer input and the parameters, then ‖W_O[:, head 1] v_1‖.
  const SentenceTrace trace = trace_sentence(*run.model, run.tokenizers.src->encode("a happy girl does not go ."), {9});
  Tensor input, w_v, b_v, w_o;
  for (const TracedTensor& stage : trace.encoder) {
    if (stage.name == "encoder.embed_positions") input = stage.value;  // [1, S, d]: layer 0's input (post-LN)
  }
  for (const NamedParameter& p : run.model->named_parameters()) {
    if (p.name == "encoder.layers.0.self_attn.v_proj.weight") w_v = p.tensor;
    if (p.name == "encoder.layers.0.self_attn.v_proj.bias") b_v = p.tensor;
    if (p.name == "encoder.layers.0.self_attn.out_proj.weight") w_o = p.tensor;
  }
  REQUIRE(input.defined());
  REQUIRE(w_o.defined());
  const int64_t d = 16, d_k = 8, head = 1, key = 3;
  std::vector<double> v(d_k, 0.0);
  for (int64_t c = 0; c < d_k; ++c) {
    v[c] = b_v.data()[head * d_k + c];
    for (int64_t k = 0; k < d; ++k) v[c] += double(w_v.data()[(head * d_k + c) * d + k]) * input.data()[key * d + k];
  }
  double squared = 0;
  for (int64_t r = 0; r < d; ++r) {
    double f = 0;
    for (int64_t c = 0; c < d_k; ++c) f += double(w_o.data()[r * d + head * d_k + c]) * v[c];
    squared += f * f;
  }
  for (int64_t query = 0; query < map.queries; ++query) {
    CHECK(map.value_norms[(head * map.queries + query) * map.keys + key] ==
          doctest::Approx(map.at(head, query, key) * std::sqrt(squared)).epsilon(1e-4));
  }
}

TEST_CASE("integrated gradients are complete: Σ_s IG = log p(e) − log p(0) within 2e-3 at 64 steps, for every kind") {
  // Midpoint rule: the error falls like 1/m²; float32 gradients add about 1e-5 per number. The tolerance is
  // |error| ≤ 2e-3 + 1e-2 · |log p(e) − log p(0)| at m = 64, and 2 steps must do visibly worse on some token.
  const std::vector<std::pair<AttentionKind, AttentionKind>> kinds = {
      {AttentionKind::scaled_dot, AttentionKind::scaled_dot},
      {AttentionKind::additive, AttentionKind::linear},
      {AttentionKind::local_m, AttentionKind::local_p},
      {AttentionKind::external, AttentionKind::scaled_dot}};
  // (Not sagan as cross-attention here: its gate γ starts at 0, so an untrained decoder does not read the source
  // at all and every attribution is exactly 0 — true, but it would prove nothing about completeness.)
  for (const auto& [self_kind, cross_kind] : kinds) {
    const std::string self_name = name_of(self_kind);
    CAPTURE(self_name);
    LoadedRun run = small_run(self_kind, cross_kind);
    const std::vector<int32_t> source = {4, 5, 6, 7, 8}, decoder_input = {bos_id, 9, 10, 11},
                               output = {9, 10, 11, eos_id};
    const Attribution fine = attribute_to_source(*run.model, source, decoder_input, output, 64);
    const Attribution coarse = attribute_to_source(*run.model, source, decoder_input, output, 2);
    double worst_fine = 0, worst_coarse = 0;
    for (size_t t = 0; t < output.size(); ++t) {
      const double gap = fine.log_prob[t] - fine.baseline_log_prob[t];
      CHECK(std::abs(fine.completeness_error[t]) <= 2e-3 + 1e-2 * std::abs(gap));
      worst_fine = std::max(worst_fine, std::abs(fine.completeness_error[t]));
      worst_coarse = std::max(worst_coarse, std::abs(coarse.completeness_error[t]));
      CHECK(fine.log_prob[t] == doctest::Approx(coarse.log_prob[t]).epsilon(1e-5));  // the same F at e
      CHECK(fine.log_prob[t] <= 0);
    }
    CHECK(worst_coarse > worst_fine);
    for (const NamedParameter& p : run.model->named_parameters()) {
      const bool holds_gradient = p.tensor.has_grad() && p.tensor.grad()[0] != 0;
      CHECK_FALSE(holds_gradient);
    }
  }
}

TEST_CASE("gradient × input agrees with the directional derivative of log p along the embeddings") {
  // d/dα F(α e) at α = 1 is Σ_s e_s · ∂F/∂e_s = Σ_s gradient_x_input[t][s]; IG with m = 1 is the same sum at
  // α = ½. Central difference of F(α e) by the midpoints of IG with two close step counts would be indirect; instead
  // F(α e) is read off the attribution of a model whose embedding table is scaled by α (e scales with it).
  LoadedRun run = small_run(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  const std::vector<int32_t> source = {4, 5, 6}, decoder_input = {bos_id, 9}, output = {9, eos_id};
  const Attribution at_one = attribute_to_source(*run.model, source, decoder_input, output, 1);
  Tensor table;
  for (const NamedParameter& p : run.model->named_parameters()) {
    if (p.name == "encoder.embed_tokens.weight") table = p.tensor;
  }
  REQUIRE(table.defined());
  const double h = 1e-2;
  auto log_prob_scaled = [&](double alpha) {
    std::vector<real> saved(table.data(), table.data() + table.numel());
    for (int64_t n = 0; n < table.numel(); ++n) table.data()[n] = real(alpha * saved[n]);
    const Attribution a = attribute_to_source(*run.model, source, decoder_input, output, 1);
    std::copy(saved.begin(), saved.end(), table.data());
    return a.log_prob;
  };
  const std::vector<double> up = log_prob_scaled(1 + h), down = log_prob_scaled(1 - h);
  for (size_t t = 0; t < output.size(); ++t) {
    double sum = 0;
    for (size_t s = 0; s < source.size(); ++s) sum += at_one.gradient_x_input[t * source.size() + s];
    CHECK(sum == doctest::Approx((up[t] - down[t]) / (2 * h)).epsilon(2e-2));
  }
}
