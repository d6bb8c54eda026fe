// check.cpp — alignment_scores against the library's count_alignment (data/alignment_error.h), pair by pair.
//
// For each pair the three rates form a Tensor [3] — precision, recall, AER — yours, the library's, and what each
// usual mistake gives (counted here with one rule changed). When yours is a mistake's, the check names it;
// otherwise it shows the pair, its links and the library's counts |A|, |S|, |A ∩ S|, |A ∩ P| beside the rates.
#include <set>
#include <string>
#include <vector>

#include "check.h"
#include "data/alignment_error.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

using Links = std::vector<AlignmentLink>;

const std::string hint =
    "precision = |A ∩ P| / |A|, recall = |A ∩ S| / |S|, AER = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|), with A, S "
    "and P sets (a link given twice is one link) and P = S together with the possible links; an empty |A| gives "
    "precision 1, an empty |S| recall 1, |A| + |S| = 0 AER 0. The library: count_alignment in "
    "src/data/alignment_error.cpp.";

// One sentence pair: its words (for the message), the gold, and the hypothesis to score.
struct Case {
  std::string source;  // "she is not ."
  std::string target;  // "elle n' est pas ."
  Alignment gold;
  Links hypothesis;
};

// "0-0 1-2 2-1": links as Pharaoh writes them, or "(none)".
std::string pharaoh(const Links& links) {
  std::string text;
  for (const AlignmentLink& link : links) {
    text += (text.empty() ? "" : " ") + std::to_string(link.source) + "-" + std::to_string(link.target);
  }
  return text.empty() ? "(none)" : text;
}

// The counts, under the right rules or with one of them changed by a usual mistake.
struct Counts {
  double A = 0, S = 0, P = 0, A_and_S = 0, A_and_P = 0;  // |A|, |S|, |P|, |A ∩ S|, |A ∩ P|
};
Counts count(const Case& pair, bool once = true, bool sure_in_possible = true) {
  Links A = pair.hypothesis;
  if (once) {                                                 // the right rule: A is a set
    const std::set<AlignmentLink> distinct(A.begin(), A.end());
    A.assign(distinct.begin(), distinct.end());
  }
  const std::set<AlignmentLink> S(pair.gold.sure.begin(), pair.gold.sure.end());
  std::set<AlignmentLink> P(pair.gold.possible.begin(), pair.gold.possible.end());
  if (sure_in_possible) P.insert(S.begin(), S.end());
  Counts n{static_cast<double>(A.size()), static_cast<double>(S.size()), static_cast<double>(P.size()), 0, 0};
  for (const AlignmentLink& link : A) {
    n.A_and_S += static_cast<double>(S.count(link));
    n.A_and_P += static_cast<double>(P.count(link));
  }
  return n;
}

double precision(const Counts& n) { return n.A == 0 ? 1.0 : n.A_and_P / n.A; }
double recall(const Counts& n) { return n.S == 0 ? 1.0 : n.A_and_S / n.S; }
// 1 − (first + second) / denominator, 0 when the denominator is.
double aer(double first, double second, double denominator) {
  return denominator == 0 ? 0.0 : 1.0 - (first + second) / denominator;
}
double aer(const Counts& n) { return aer(n.A_and_S, n.A_and_P, n.A + n.S); }
Tensor rates(const Counts& n) { return as_tensor({precision(n), recall(n), aer(n)}); }

std::vector<Mistake> usual_mistakes(const Case& pair) {
  const Counts n = count(pair);
  return {
      {"recall_over_possible", "your recall is |A ∩ P| / |P|: taken over the possible links",
       as_tensor({precision(n), n.P == 0 ? 1.0 : n.A_and_P / n.P, aer(n)}),
       "recall asks how many of the sure links A found: |A ∩ S| / |S|. A possible link is one the annotators "
       "were unsure of; missing it is no error."},
      {"precision_over_sure", "your precision is |A ∩ S| / |A|: a possible link of A counted as wrong",
       as_tensor({n.A == 0 ? 1.0 : n.A_and_S / n.A, recall(n), aer(n)}),
       "precision asks how many links of A the gold allows: |A ∩ P| / |A|, P with the sure links and the possible "
       "ones."},
      {"sure_hits_twice", "your AER counts |A ∩ S| twice in its numerator, and not |A ∩ P|",
       as_tensor({precision(n), recall(n), aer(n.A_and_S, n.A_and_S, n.A + n.S)}),
       "AER = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|): one term for the sure hits, one for the possible hits (the "
       "sure ones included)."},
      {"possible_hits_twice", "your AER counts |A ∩ P| twice in its numerator, and not |A ∩ S|",
       as_tensor({precision(n), recall(n), aer(n.A_and_P, n.A_and_P, n.A + n.S)}),
       "AER = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|): the first term counts the sure hits only, so a sure link "
       "found weighs twice a merely possible one."},
      {"aer_over_possible", "your AER divides by |A| + |P|, not |A| + |S|",
       as_tensor({precision(n), recall(n), aer(n.A_and_S, n.A_and_P, n.A + n.P)}),
       "AER's denominator is |A| + |S|: the hypothesis and the sure links, as its numerator's two terms are "
       "bounded by |A| and |S|. With |A| + |P| even A = S would not score 0."},
      {"possible_without_sure", "your P leaves out the sure links: a sure link of A is not counted in |A ∩ P|",
       rates(count(pair, true, false)),
       "S ⊆ P: a sure link is possible too. gold.possible holds only P \\ S, so P is gold.sure and gold.possible "
       "together."},
      {"duplicates_counted", "a link given twice in A counts twice in yours",
       rates(count(pair, false, true)),
       "A is a set: a link given twice is one link (std::set<AlignmentLink> A(hypothesis.begin(), "
       "hypothesis.end()))."},
  };
}

void check_pair(const Case& pair) {
  const AlignmentCounts library = count_alignment(pair.hypothesis, pair.gold);
  const Tensor right = as_tensor({library.precision(), library.recall(), library.aer()});   // [3]
  const AlignmentScores scores = alignment_scores(pair.hypothesis, pair.gold);
  const Tensor yours = as_tensor({scores.precision, scores.recall, scores.aer});           // [3]

  const std::vector<std::string> input{
      "source \"" + pair.source + "\" → target \"" + pair.target + "\"",
      "S (sure)     = " + pharaoh(pair.gold.sure),
      "P \\ S        = " + pharaoh(pair.gold.possible),
      "A (to score) = " + pharaoh(pair.hypothesis),
      "(the rates as [precision, recall, AER])"};
  diagnose(right, yours, usual_mistakes(pair), input);
  bool same = true;
  for (int64_t k = 0; k < 3; ++k) same = same && close(right.data()[k], yours.data()[k], Tolerance{});
  if (same) return;
  std::vector<std::string> details(input.begin(), input.end() - 1);
  details.push_back("the library's counts: |A| = " + std::to_string(library.hypothesis) + ", |S| = " +
                    std::to_string(library.sure) + ", |A ∩ S| = " + std::to_string(library.hits_sure) +
                    ", |A ∩ P| = " + std::to_string(library.hits_possible));
  details.push_back("expected precision " + number(library.precision()) + ", recall " + number(library.recall()) +
                    ", AER " + number(library.aer()));
  details.push_back("yours    precision " + number(scores.precision) + ", recall " + number(scores.recall) +
                    ", AER " + number(scores.aer));
  const std::string why =
      all_zero(yours) ? "Your rates are all zero (the shipped stub): fill in the TODO in "
                        "exercises/alignment_error_rate/exercise.cpp. " + hint
                      : hint;
  fail("the rates differ", details, why);
}

// A gold of sure links `sure` and possible-only links `possible`.
Alignment gold(Links sure, Links possible) {
  Alignment alignment;
  alignment.sure = std::move(sure);
  alignment.possible = std::move(possible);
  return alignment;
}

void check() {
  const std::vector<Case> pairs{
      // First a pair where every usual mistake shows (4 source × 5 target words, never square): a sure hit, a
      // possible-only hit, a link outside P, a sure link missed, and 0-0 given twice.
      // |A| = 4, |S| = 3, |A ∩ S| = 2, |A ∩ P| = 3 → precision 3/4, recall 2/3, AER 2/7.
      {"she is not .", "elle n' est pas .", gold({{0, 0}, {1, 2}, {3, 4}}, {{2, 1}, {2, 3}}),
       {{0, 0}, {1, 2}, {2, 1}, {2, 4}, {0, 0}}},
      // Negation: "ne … pas" possible for "not", "does" with no French word. AER 1 − 9/10 = 0.1.
      {"the cat does not sleep .", "le chat ne dort pas .",
       gold({{0, 0}, {1, 1}, {4, 3}, {5, 5}}, {{3, 2}, {3, 4}}), {{0, 0}, {1, 1}, {2, 2}, {4, 3}, {3, 4}, {5, 5}}},
      // The adjective after its noun, read monotonically: the crossing missed. AER 1 − 6/10 = 0.4.
      {"the black cat sleeps .", "le chat noir dort .", gold({{0, 0}, {1, 2}, {2, 1}, {3, 3}, {4, 4}}, {}),
       {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}}},
      // Nothing claimed: precision 1, recall 0, AER 1.
      {"she is not .", "elle n' est pas .", gold({{0, 0}, {1, 2}, {3, 4}}, {{2, 1}, {2, 3}}), {}},
      // A gold with a possible link only (a filler word): recall 1 whatever A is; A inside P, AER 0.
      {"well", "bon", gold({}, {{0, 0}}), {{0, 0}}},
      // An empty pair: no link anywhere, precision 1, recall 1, AER 0.
      {"", "", gold({}, {}), {}},
  };
  for (const Case& pair : pairs) check_pair(pair);
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("alignment_error_rate", attnlab::exercises::hint, attnlab::exercises::check);
}
