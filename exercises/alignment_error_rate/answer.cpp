// answer.cpp — the project's answer to the alignment_error_rate exercise. Try exercise.cpp first.
//
// Sets make the rule "a link given twice is one link" a matter of construction, and P is S and P \ S together.
// A sure link is possible too, so a link of A ∩ S counts in both hits: an A that is exactly S scores AER 0.
// The library keeps the four counts apart (AlignmentCounts, src/data/alignment_error.h) so that a corpus can
// sum them sentence by sentence before taking the rates once, as Och & Ney do: count_alignment in
// src/data/alignment_error.cpp.
#include <set>

#include "exercise.h"

namespace attnlab::exercises {

AlignmentScores alignment_scores(const std::vector<AlignmentLink>& hypothesis, const Alignment& gold) {
  const std::set<AlignmentLink> A(hypothesis.begin(), hypothesis.end());   // a link given twice is one link
  const std::set<AlignmentLink> S(gold.sure.begin(), gold.sure.end());
  std::set<AlignmentLink> P(gold.possible.begin(), gold.possible.end());
  P.insert(S.begin(), S.end());                                           // S ⊆ P: a sure link is possible too
  double a_and_s = 0, a_and_p = 0;                                        // |A ∩ S|, |A ∩ P|
  for (const AlignmentLink& link : A) {
    a_and_s += static_cast<double>(S.count(link));
    a_and_p += static_cast<double>(P.count(link));
  }
  const double a = static_cast<double>(A.size()), s = static_cast<double>(S.size());   // |A|, |S|
  AlignmentScores scores;
  scores.precision = a == 0 ? 1.0 : a_and_p / a;
  scores.recall = s == 0 ? 1.0 : a_and_s / s;
  scores.aer = a + s == 0 ? 0.0 : 1.0 - (a_and_s + a_and_p) / (a + s);
  return scores;
}

}  // namespace attnlab::exercises
