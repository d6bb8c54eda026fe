// f64_two_paths.cpp — two paths, one truth, in float64: the fused kernels compute what the paper's chain of plain
// ops computes. For every attention kind, with and without a window, post- and pre-LN, a model built twice from
// one seed — once with model.kernels: fused, once reference — gives the same logits, the same training loss (with
// dropout on: both paths drop the same numbers) and the same gradient of every parameter, to 1e-12 relative.
// Each model uses the kind for encoder self-attention (padding), decoder self-attention (causal) and
// cross-attention, so every use is covered (external attention cannot be cross-attention: scaled_dot stands in).
#include <doctest/doctest.h>

#include "two_paths_support.h"
#include "util/error.h"

using namespace attnlab;
using namespace attnlab::testing;

namespace {
constexpr double tolerance = 1e-12;   // float64 rounding of a few hundred operations, with room to spare
}

TEST_CASE("both paths give the same logits, loss and parameter gradients for every kind, to 1e-12 in float64") {
  for (const PathCase& c : every_path_case()) {
    CAPTURE(c.name());
    const PathResult fused = run_path(c, "fused");
    const PathResult reference = run_path(c, "reference");
    CHECK(relative_difference(fused.logits, reference.logits) <= tolerance);
    CHECK(std::abs(fused.loss - reference.loss) <= tolerance * std::abs(reference.loss));
    REQUIRE(fused.names == reference.names);
    for (size_t p = 0; p < fused.names.size(); ++p) {
      CAPTURE(fused.names[p]);
      CHECK(relative_difference(fused.gradients[p], reference.gradients[p]) <= tolerance);
    }
  }
}

TEST_CASE("the comparison can fail: two different models are told apart far beyond the tolerance") {
  // The check above would pass vacuously if model.kernels did nothing and the numbers compared did not depend on
  // the model. Another kind's model, built from the same seed, must differ in logits, loss and gradients.
  const PathResult a = run_path({"scaled_dot", false, "post"}, "fused");
  const PathResult b = run_path({"additive", false, "post"}, "reference");
  CHECK(relative_difference(a.logits, b.logits) > 1e-3);
  CHECK(std::abs(a.loss - b.loss) > 1e-6);
}

TEST_CASE("model.kernels takes fused or reference, and names the key when it is neither") {
  ModelConfig m = path_config({"scaled_dot", false, "post"}, "fast");
  Generator init(1);
  CHECK_THROWS_WITH_AS(Seq2Seq(m, init), doctest::Contains("model.kernels: 'fast' is not one of fused, reference"),
                       Error);
}
