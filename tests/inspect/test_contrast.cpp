// test_contrast.cpp — "why this token and not that one?" (src/inspect/maps/contrast.h): the gap
// Δ = log p(chosen) − log p(alternative) attributed to the source words, and its sanity checks.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "inspect/maps/attention_maps.h"
#include "inspect/maps/contrast.h"
#include "inspect/maps/trace.h"
#include "inspect_test_support.h"
#include "test_support.h"
#include "util/error.h"

using namespace attnlab;

namespace {

const std::vector<std::string> kText = {"a happy girl does not go .", "une fille heureuse ne va pas ."};

// The pair recorded on an untrained small model (inspect_test_support.h), with its pass's trace.
struct Recorded {
  LoadedRun run;
  AttentionPicture picture;
  SentenceTrace trace;
};
Recorded recorded(AttentionKind self_kind, AttentionKind cross_kind) {
  Recorded r{testing::small_run({self_kind, cross_kind, kText}), {}, {}};
  r.picture = record_attention(r.run, kText[0], kText[1], 1, 0, &r.trace);
  return r;
}

int32_t id_of(const LoadedRun& run, const std::string& token) {
  return run.tokenizers.tgt->encode(token).at(0);
}

double sum_of(const std::vector<double>& values) {
  double total = 0;
  for (double x : values) total += x;
  return total;
}

}  // namespace

TEST_CASE("the contrast's integrated gradients are complete: Σ_s a_s = Δ(e) − Δ(0) within the error reported") {
  // The reported error is exactly Σ_s a_s − (Δ(e) − Δ(0)); it is small at m = 64 (midpoint rule: ~1/m², plus float32
  // noise) and larger at m = 2 on some position. Two kinds: the gradient flows through different attention.
  for (const auto& [self_kind, cross_kind] : {std::pair{AttentionKind::scaled_dot, AttentionKind::scaled_dot},
                                              std::pair{AttentionKind::additive, AttentionKind::linear}}) {
    const std::string self_name = name_of(self_kind);
    CAPTURE(self_name);
    Recorded r = recorded(self_kind, cross_kind);
    const int32_t alternative = id_of(r.run, "fille");
    double worst_fine = 0, worst_coarse = 0;
    for (int64_t t = 0; t < static_cast<int64_t>(r.picture.target_output_tokens.size()); ++t) {
      if (r.picture.target_output_tokens[t] == "fille") continue;  // the chosen token there: no contrast
      const Contrast fine = contrast_at(*r.run.model, r.trace, {t, alternative, -1}, 64);
      const Contrast coarse = contrast_at(*r.run.model, r.trace, {t, alternative, -1}, 2);
      const double explained = fine.gap - fine.baseline_gap;
      CHECK(fine.completeness_error == doctest::Approx(sum_of(fine.integrated) - explained).epsilon(1e-9));
      CHECK(std::abs(fine.completeness_error) <= 2e-3 + 1e-2 * std::abs(explained));
      CHECK(fine.gap == doctest::Approx(coarse.gap).epsilon(1e-5));  // the same Δ at e, whatever m
      worst_fine = std::max(worst_fine, std::abs(fine.completeness_error));
      worst_coarse = std::max(worst_coarse, std::abs(coarse.completeness_error));
    }
    CHECK(worst_coarse > worst_fine);
    for (const NamedParameter& p : r.run.model->named_parameters()) {
      const bool holds_gradient = p.tensor.has_grad() && p.tensor.grad()[0] != 0;
      CHECK_FALSE(holds_gradient);
    }
  }
}

TEST_CASE("Σ gradient × input and Σ one-step integrated gradients are the gap's derivative along the embeddings") {
  // d/dα Δ(α e) = Σ_s e_s · ∂Δ/∂e_s at α e: at α = 1 that is Σ_s gradient × input, at α = ½ the one midpoint of
  // integrated gradients with m = 1. Δ(α e) is read off a pair recorded with the source embedding table scaled by α
  // (e scales with it), and differentiated by central differences.
  Recorded r = recorded(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  Tensor table;
  for (const NamedParameter& p : r.run.model->named_parameters()) {
    if (p.name == "encoder.embed_tokens.weight" || p.name == "shared.weight") table = p.tensor;
  }
  REQUIRE(table.defined());
  const ContrastQuestion question{2, id_of(r.run, "fille"), -1};
  auto gap_at = [&](double alpha) {
    std::vector<real> saved(table.data(), table.data() + table.numel());
    for (int64_t n = 0; n < table.numel(); ++n) table.data()[n] = real(alpha * saved[n]);
    SentenceTrace scaled;
    record_attention(r.run, kText[0], kText[1], 1, 0, &scaled);
    const double gap = contrast_at(*r.run.model, scaled, question, 1).gap;
    std::copy(saved.begin(), saved.end(), table.data());
    return gap;
  };
  const Contrast c = contrast_at(*r.run.model, r.trace, question, 1);
  const double h = 1e-2;
  const double slope_at_one = (gap_at(1 + h) - gap_at(1 - h)) / (2 * h);
  const double slope_at_half = (gap_at(0.5 + h) - gap_at(0.5 - h)) / (2 * h);
  REQUIRE(std::abs(slope_at_one) > 1e-3);  // the untrained model reads its source enough to test
  CHECK(sum_of(c.gradient_x_input) == doctest::Approx(slope_at_one).epsilon(2e-2));
  CHECK(sum_of(c.integrated) == doctest::Approx(slope_at_half).epsilon(2e-2));
}

TEST_CASE("the gap is log p(chosen) − log p(alternative) of the recorded pass") {
  Recorded r = recorded(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  const int32_t alternative = id_of(r.run, "va");
  const std::vector<Contrast> contrasts = contrasts_of(r.run, r.picture, r.trace, {{1, alternative, -1}}, 8);
  REQUIRE(contrasts.size() == 1);
  const Contrast& c = contrasts[0];
  CHECK(c.chosen == "fille");
  CHECK(c.alternative == "va");
  CHECK(c.gap == doctest::Approx(std::log(c.p_chosen) - std::log(c.p_alternative)).epsilon(1e-4));
  CHECK(c.p_chosen == doctest::Approx(r.picture.decoding[1].chosen_probability));
}

TEST_CASE("swapping the two tokens flips every sign, and the contrasts c–a and a–b add up to c–b") {
  // Δ is linear in the log-probabilities and every contrast integrates along the same path, so these hold to
  // float32's rounding, not only in the limit.
  Recorded r = recorded(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  const int32_t c = id_of(r.run, "fille"), a = id_of(r.run, "va"), b = id_of(r.run, "pas");
  const Contrast ca = contrast_at(*r.run.model, r.trace, {1, a, c}, 8);
  const Contrast ac = contrast_at(*r.run.model, r.trace, {1, c, a}, 8);
  const Contrast ab = contrast_at(*r.run.model, r.trace, {1, b, a}, 8);
  const Contrast cb = contrast_at(*r.run.model, r.trace, {1, b, c}, 8);
  CHECK(ca.gap == doctest::Approx(-ac.gap).epsilon(1e-5));
  CHECK(ca.gap + ab.gap == doctest::Approx(cb.gap).epsilon(1e-4));
  double largest = 0;
  for (size_t s = 0; s < ca.integrated.size(); ++s) largest = std::max(largest, std::abs(ca.integrated[s]));
  REQUIRE(largest > 1e-4);  // an untrained model that does not read its source would prove nothing
  for (size_t s = 0; s < ca.integrated.size(); ++s) {
    CAPTURE(s);
    CHECK(ca.integrated[s] == doctest::Approx(-ac.integrated[s]).epsilon(1e-4).scale(largest));
    CHECK(ca.gradient_x_input[s] == doctest::Approx(-ac.gradient_x_input[s]).epsilon(1e-4).scale(largest));
    CHECK(ca.integrated[s] + ab.integrated[s] == doctest::Approx(cb.integrated[s]).epsilon(1e-4).scale(largest));
  }
}

TEST_CASE("ALTI+'s split of the position between the source and the target prefix sums to 1") {
  Recorded r = recorded(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  const std::vector<Contrast> contrasts = contrasts_of(r.run, r.picture, r.trace, likeliest_alternatives(r.trace), 2);
  size_t asked = 0;  // the five likeliest tokens of each position, but the chosen one where it is among them
  for (const DecodingStep& step : r.picture.decoding) {
    asked += 5;
    for (const auto& [token, p] : step.likeliest) asked -= token == step.chosen ? 1 : 0;
  }
  CHECK(contrasts.size() == asked);
  for (const Contrast& c : contrasts) {
    CHECK(c.alti_error.empty());
    CHECK(c.alti_source > 0);
    CHECK(c.alti_source + c.alti_target == doctest::Approx(1).epsilon(1e-6));
  }
}

TEST_CASE("a contrast that asks nothing answerable is refused, naming what is wrong") {
  Recorded r = recorded(AttentionKind::scaled_dot, AttentionKind::scaled_dot);
  const Tokenizer& target = *r.run.tokenizers.tgt;
  CHECK(contrast_question("1:va", target, r.picture).position == 1);
  CHECK_THROWS_WITH_AS(contrast_question("grand", target, r.picture), doctest::Contains("is not POS:TOKEN"), Error);
  CHECK_THROWS_WITH_AS(contrast_question("-1:va", target, r.picture), doctest::Contains("is not POS:TOKEN"), Error);
  CHECK_THROWS_WITH_AS(contrast_question("8:va", target, r.picture), doctest::Contains("positions are 0 to 7"), Error);
  CHECK_THROWS_WITH_AS(contrast_question("1:grande", target, r.picture),
                       doctest::Contains("'grande' is not a token of the target vocabulary"), Error);
  CHECK_THROWS_WITH_AS(contrast_question("1:fille", target, r.picture),
                       doctest::Contains("'fille' is the token the translation has at position 1"), Error);
  CHECK_THROWS_WITH_AS(contrast_at(*r.run.model, r.trace, {1, id_of(r.run, "fille"), -1}, 4),
                       doctest::Contains("the chosen token itself"), Error);
  CHECK_THROWS_WITH_AS(contrast_at(*r.run.model, r.trace, {9, 4, -1}, 4),
                       doctest::Contains("position 9 is not a decoder position"), Error);
  CHECK_THROWS_WITH_AS(contrast_at(*r.run.model, r.trace, {1, 4, -1}, 0), doctest::Contains("at least 1 step"), Error);
}
