// test_alignment_error.cpp — facts about precision, recall and the alignment error rate (src/data/alignment_error.h),
// each against numbers worked out by hand in the comments.
//
// The pair most tests use: 3 source words (i = 0 … 2), 4 target words (j = 0 … 3), and its gold
//     S     = {0-0, 1-2, 2-3}                 |S| = 3   (sure)
//     P \ S = {1-1, 2-1}                                (possible but not sure: 1 or 2 may have produced word 1)
//     P     = {0-0, 1-1, 1-2, 2-1, 2-3}       |P| = 5
// and a hypothesis A with one link of each kind:
//     A     = {0-0, 1-1, 2-3, 0-2}            |A| = 4
//     0-0 ∈ S, 1-1 ∈ P \ S, 2-3 ∈ S, 0-2 ∉ P  →  |A ∩ S| = 2, |A ∩ P| = 3
//     precision = 3/4, recall = 2/3, AER = 1 − (2 + 3) / (4 + 3) = 2/7
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "data/alignment_error.h"
#include "util/error.h"

using namespace attnlab;

namespace {

using Links = std::vector<AlignmentLink>;

// The gold of the 3 × 4 pair above (built directly: the test needs no parser).
Alignment gold_3x4() {
  Alignment gold;
  gold.sure = {{0, 0}, {1, 2}, {2, 3}};
  gold.possible = {{1, 1}, {2, 1}};
  return gold;
}

// A of the pair above: one sure hit, one possible-only hit, one more sure hit, one link outside P.
Links hypothesis_3x4() { return {{0, 0}, {1, 1}, {2, 3}, {0, 2}}; }

void check_counts(const AlignmentCounts& counts, int64_t hypothesis, int64_t sure, int64_t hits_sure,
                  int64_t hits_possible) {
  CHECK(counts.hypothesis == hypothesis);
  CHECK(counts.sure == sure);
  CHECK(counts.hits_sure == hits_sure);
  CHECK(counts.hits_possible == hits_possible);
}

}  // namespace

TEST_CASE("alignment error: a link in S counts for precision and recall, one in P \\ S for precision only, one "
          "outside P for neither") {
  const AlignmentCounts counts = count_alignment(hypothesis_3x4(), gold_3x4());
  check_counts(counts, 4, 3, 2, 3);                       // |A|, |S|, |A ∩ S|, |A ∩ P| (header of this file)
  CHECK(counts.precision() == doctest::Approx(3.0 / 4));  // |A ∩ P| / |A|
  CHECK(counts.recall() == doctest::Approx(2.0 / 3));     // |A ∩ S| / |S|
  CHECK(counts.aer() == doctest::Approx(2.0 / 7));        // 1 − (2 + 3) / (4 + 3)
}

TEST_CASE("alignment error: A = S and A = P both score AER 0; a possible link never costs anything") {
  const Alignment gold = gold_3x4();
  // A = S: |A| = 3, |A ∩ S| = 3, |A ∩ P| = 3 → AER = 1 − 6/6 = 0, precision 1, recall 1.
  const AlignmentCounts sure_only = count_alignment(gold.sure, gold);
  check_counts(sure_only, 3, 3, 3, 3);
  CHECK(sure_only.aer() == 0.0);
  // A = P: |A| = 5, |A ∩ S| = 3, |A ∩ P| = 5 → AER = 1 − 8/8 = 0, precision 5/5, recall 3/3.
  Links all_possible = gold.sure;
  all_possible.insert(all_possible.end(), gold.possible.begin(), gold.possible.end());
  const AlignmentCounts everything = count_alignment(all_possible, gold);
  check_counts(everything, 5, 3, 3, 5);
  CHECK(everything.aer() == 0.0);
  CHECK(everything.precision() == 1.0);
  CHECK(everything.recall() == 1.0);
}

TEST_CASE("alignment error: a link given twice counts once, and the order of A's links does not matter") {
  // A with 0-0 and 0-2 given twice, shuffled: still the set {0-0, 1-1, 2-3, 0-2} → the counts (4, 3, 2, 3).
  const Links repeated{{0, 2}, {2, 3}, {0, 0}, {1, 1}, {0, 0}, {0, 2}};
  const AlignmentCounts counts = count_alignment(repeated, gold_3x4());
  check_counts(counts, 4, 3, 2, 3);
  CHECK(counts.aer() == doctest::Approx(2.0 / 7));
}

TEST_CASE("alignment error: empty sets follow the header's conventions") {
  // An empty target sentence: no gold link, no hypothesis link. All counts 0: precision 1, recall 1, AER 0.
  const AlignmentCounts nothing = count_alignment({}, Alignment{});
  check_counts(nothing, 0, 0, 0, 0);
  CHECK(nothing.precision() == 1.0);
  CHECK(nothing.recall() == 1.0);
  CHECK(nothing.aer() == 0.0);

  // An empty hypothesis against the 3 × 4 gold: |A| = 0, |S| = 3. Precision 1 (nothing claimed), recall 0/3,
  // AER = 1 − (0 + 0) / (0 + 3) = 1.
  const AlignmentCounts silent = count_alignment({}, gold_3x4());
  check_counts(silent, 0, 3, 0, 0);
  CHECK(silent.precision() == 1.0);
  CHECK(silent.recall() == 0.0);
  CHECK(silent.aer() == 1.0);

  // A gold with only a possible link, 0?0 (S empty): recall is 1 whatever A is. A = {0-0}: |A| = 1, |A ∩ P| = 1,
  // AER = 1 − (0 + 1) / (1 + 0) = 0. A = {0-1}: precision 0/1, AER = 1 − 0/1 = 1.
  Alignment only_possible;
  only_possible.possible = {{0, 0}};
  const AlignmentCounts allowed = count_alignment({{0, 0}}, only_possible);
  check_counts(allowed, 1, 0, 0, 1);
  CHECK(allowed.recall() == 1.0);
  CHECK(allowed.aer() == 0.0);
  const AlignmentCounts wrong = count_alignment({{0, 1}}, only_possible);
  CHECK(wrong.precision() == 0.0);
  CHECK(wrong.recall() == 1.0);
  CHECK(wrong.aer() == 1.0);
}

TEST_CASE("alignment error over a corpus sums the counts first, then takes the rates once (Och & Ney)") {
  // Pair 1: the 3 × 4 pair, counts (|A|, |S|, |A ∩ S|, |A ∩ P|) = (4, 3, 2, 3), AER 2/7.
  // Pair 2: one word each side, S = {0-0}, A = {0-0}: (1, 1, 1, 1), AER 0.
  // Summed: (5, 4, 3, 4) → precision 4/5, recall 3/4, AER = 1 − (3 + 4) / (5 + 4) = 2/9 — not the mean of the
  // two sentences' AERs, (2/7 + 0) / 2 = 1/7: the longer sentence weighs more.
  Alignment one_word;
  one_word.sure = {{0, 0}};
  AlignmentCounts corpus;
  corpus += count_alignment(hypothesis_3x4(), gold_3x4());
  corpus += count_alignment({{0, 0}}, one_word);
  check_counts(corpus, 5, 4, 3, 4);
  CHECK(corpus.precision() == doctest::Approx(4.0 / 5));
  CHECK(corpus.recall() == doctest::Approx(3.0 / 4));
  CHECK(corpus.aer() == doctest::Approx(2.0 / 9));
  CHECK(corpus.aer() != doctest::Approx(1.0 / 7));
}

TEST_CASE("alignment error over some target words keeps only the links, of A and of the gold, that end on them") {
  const Links A = hypothesis_3x4();
  const Alignment gold = gold_3x4();
  // Target words {1, 2}: A keeps 1-1, 0-2 (|A| = 2); S keeps 1-2 (|S| = 1); P keeps 1-1, 1-2, 2-1.
  // |A ∩ S| = 0, |A ∩ P| = 1 (1-1) → precision 1/2, recall 0/1, AER = 1 − (0 + 1) / (2 + 1) = 2/3.
  const AlignmentCounts middle = count_alignment(A, gold, {1, 2});
  check_counts(middle, 2, 1, 0, 1);
  CHECK(middle.precision() == doctest::Approx(1.0 / 2));
  CHECK(middle.recall() == 0.0);
  CHECK(middle.aer() == doctest::Approx(2.0 / 3));
  // Target word {3}: A keeps 2-3, S keeps 2-3 → (1, 1, 1, 1), AER 0.
  check_counts(count_alignment(A, gold, {3}), 1, 1, 1, 1);
  // Target word {0}: A keeps 0-0, S keeps 0-0 → (1, 1, 1, 1). No target word: nothing kept.
  check_counts(count_alignment(A, gold, {0}), 1, 1, 1, 1);
  check_counts(count_alignment(A, gold, {}), 0, 0, 0, 0);
  // The target words split into {0}, {1, 2}, {3}: their counts add up to the whole pair's (4, 3, 2, 3).
  AlignmentCounts parts = count_alignment(A, gold, {0});
  parts += middle;
  parts += count_alignment(A, gold, {3});
  check_counts(parts, 4, 3, 2, 3);
}

TEST_CASE("alignment error: swapping the target words of two links changes AER by the amount worked out by hand") {
  // A planted wrong alignment: in A = {0-0, 1-1, 2-3, 0-2} (AER 2/7), 1 and 2 swap their target words:
  //   A' = {0-0, 1-3, 2-1, 0-2}:  0-0 ∈ S, 1-3 ∉ P, 2-1 ∈ P \ S, 0-2 ∉ P  →  |A'| = 4, |A' ∩ S| = 1, |A' ∩ P| = 2
  //   AER = 1 − (1 + 2) / (4 + 3) = 4/7: the swap costs 2/7 (a sure hit lost, a possible hit kept).
  const Alignment gold = gold_3x4();
  const Links swapped{{0, 0}, {1, 3}, {2, 1}, {0, 2}};
  const AlignmentCounts right = count_alignment(hypothesis_3x4(), gold);
  const AlignmentCounts wrong = count_alignment(swapped, gold);
  check_counts(wrong, 4, 3, 1, 2);
  CHECK(wrong.aer() == doctest::Approx(4.0 / 7));
  CHECK(wrong.aer() - right.aer() == doctest::Approx(2.0 / 7));
  // The gold's own sure links swapped the same way, {0-0, 1-3, 2-2}: one sure hit of 3, nothing else in P.
  // |A| = 3, |A ∩ S| = 1, |A ∩ P| = 1 → AER = 1 − 2/6 = 2/3, up from 0.
  const AlignmentCounts swapped_gold = count_alignment({{0, 0}, {1, 3}, {2, 2}}, gold);
  check_counts(swapped_gold, 3, 3, 1, 1);
  CHECK(swapped_gold.aer() == doctest::Approx(2.0 / 3));
}

TEST_CASE("argmax alignment links each target word to its largest weight, the first on a tie, and skips rows "
          "of zeros or non-finite numbers") {
  const real nan = std::numeric_limits<real>::quiet_NaN(), inf = std::numeric_limits<real>::infinity();
  // weights [6 target words, 3 source words]
  const std::vector<real> weights{
      0.7f, 0.2f, 0.1f,   // target 0 → source 0
      0.4f, 0.4f, 0.2f,   // target 1: a tie of 0 and 1 → the first, 0
      0.0f, 0.0f, 0.0f,   // target 2: all zeros → no link
      nan,  0.3f, 0.6f,   // target 3: the NaN is skipped → source 2
      0.0f, nan,  inf,    // target 4: zeros and non-finite numbers → no link
      -1.f, -0.5f, -2.f,  // target 5: all negative, still a largest → source 1
  };
  const Links links = argmax_alignment(weights.data(), 6, 3);
  CHECK(links == Links{{0, 0}, {0, 1}, {2, 3}, {1, 5}});
  CHECK(argmax_alignment(nullptr, 0, 3).empty());   // no target word, no link
  CHECK(argmax_alignment(nullptr, 4, 0).empty());   // no source word to link to
}

TEST_CASE("argmax alignment names a shape that is not a pair's and null weights") {
  const std::vector<real> weights(6, 0.5f);
  CHECK_THROWS_WITH_AS(argmax_alignment(weights.data(), -1, 3),
                       doctest::Contains("weights [-1, 3] is not a pair's shape"), Error);
  CHECK_THROWS_WITH_AS(argmax_alignment(weights.data(), 2, int64_t{1} << 40),
                       doctest::Contains("each in 0 … 2147483647"), Error);
  CHECK_THROWS_WITH_AS(argmax_alignment(nullptr, 2, 3), doctest::Contains("weights is null"), Error);
}
