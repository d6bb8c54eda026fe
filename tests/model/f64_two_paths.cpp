// f64_two_paths.cpp — two paths, one truth, in float64: the fused kernels compute what the paper's chain of plain
// ops computes. For every attention kind, with and without a window, post- and pre-LN, a model built twice from
// one seed — once with model.path: fused, once paper — gives the same logits, the same training loss (with
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
    const PathResult fused = run_path(c, ComputePath::fused);
    const PathResult reference = run_path(c, ComputePath::paper);
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
  // The check above would pass vacuously if model.path did nothing and the numbers compared did not depend on
  // the model. Another kind's model, built from the same seed, must differ in logits, loss and gradients.
  const PathResult a = run_path({AttentionKind::scaled_dot, false, NormPlacement::post}, ComputePath::fused);
  const PathResult b = run_path({AttentionKind::additive, false, NormPlacement::post}, ComputePath::paper);
  CHECK(relative_difference(a.logits, b.logits) > 1e-3);
  CHECK(std::abs(a.loss - b.loss) > 1e-6);
}

TEST_CASE("two models in one process compute by their own paths: each gives what it gives alone") {
  // Nothing about the path is process-wide, the GEMM included (tensor/product/product.h): building or running one model
  // must not change another's numbers. The model and batch are large enough ([20, 32] · [32, 32] and up) that
  // every product runs on a GEMM, where the two paths' GEMMs differ in their last bits. Each model alone first,
  // then both built side by side and run one after the other: the same bits.
  const auto model_config = [](ComputePath path) {
    ModelConfig m = path_config({AttentionKind::scaled_dot, false, NormPlacement::post}, path);
    m.src_vocab = m.tgt_vocab = 40;
    m.d_model = 32;
    m.d_ff = 64;
    return m;
  };
  PathBatch batch;
  batch.src = TokenIds{{2, 10}, {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23}};
  batch.tgt_in = TokenIds{{2, 10}, {1, 24, 25, 26, 27, 28, 29, 30, 31, 32, 1, 33, 34, 35, 36, 37, 38, 39, 4, 5}};
  batch.targets = TokenIds{{2, 10}, {24, 25, 26, 27, 28, 29, 30, 31, 32, 2, 33, 34, 35, 36, 37, 38, 39, 4, 5, 2}};
  const auto alone = [&](ComputePath path) {
    Generator init(20171206);
    Seq2Seq model(model_config(path), init);
    return run_path_on(model, batch);
  };
  const PathResult fused_alone = alone(ComputePath::fused), paper_alone = alone(ComputePath::paper);
  Generator init_fused(20171206), init_paper(20171206);
  Seq2Seq fused_model(model_config(ComputePath::fused), init_fused);
  Seq2Seq paper_model(model_config(ComputePath::paper), init_paper);   // built second: must not move the first
  const PathResult fused_beside = run_path_on(fused_model, batch);
  const PathResult paper_beside = run_path_on(paper_model, batch);
  CHECK(fused_beside.logits == fused_alone.logits);
  CHECK(fused_beside.loss == fused_alone.loss);
  CHECK(fused_beside.gradients == fused_alone.gradients);
  CHECK(paper_beside.logits == paper_alone.logits);
  CHECK(paper_beside.loss == paper_alone.loss);
  CHECK(paper_beside.gradients == paper_alone.gradients);
  // …and the two paths are different computations here (else the checks above could not tell them apart).
  CHECK(fused_alone.gradients != paper_alone.gradients);
  CHECK(relative_difference(fused_alone.logits, paper_alone.logits) < 1e-12);
}
