// Exercise alignment_error_rate (chapter data): precision, recall and the alignment error rate of a word alignment.
//
// A word alignment says which source word each target word was translated from, as links i-j (source word i
// produced target word j). To score one — the argmax of an attention picture, say — against a gold alignment made
// by people, Och & Ney (2003) let the annotators mark two kinds of links: sure ones, S, where the translation is
// clear, and possible ones, P ⊇ S, where it is ambiguous ("not" ↔ "ne" and "pas": which French word is the
// translation of "not"?). A hypothesis A is then scored by
//
//   precision = |A ∩ P| / |A|          a link the gold allows is not wrong
//   recall    = |A ∩ S| / |S|          only the sure links must be found
//   AER       = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|)
//
// AER is 0 when A holds every sure link and nothing outside P, 1 when A and P share nothing. With an empty set
// the rates take these values: |A| = 0 → precision 1 (nothing claimed, nothing wrong), |S| = 0 → recall 1,
// |A| + |S| = 0 → AER 0.
//
// Input: the hypothesis A as a list of links (any order; a link given twice is one link: put them in a
// std::set<AlignmentLink>, whose links compare by (source, target)); the gold as an Alignment whose `sure` are S
// and whose `possible` are P \ S — the possible links that are not sure. P itself is both lists together.
//   Example: "she is not ." → "elle n' est pas .", S = {0-0, 1-2, 3-4}, P \ S = {2-1, 2-3},
//   A = {0-0, 1-2, 2-1, 2-4}: |A ∩ S| = 2, |A ∩ P| = 3 → precision 3/4, recall 2/3, AER = 1 − 5/7 = 2/7.
//
// Check:  tools/exercise.sh alignment_error_rate
//   compares your three rates with the library's count_alignment (src/data/alignment_error.cpp) on a few pairs:
//   the example above, a negation, an adjective after its noun, an empty hypothesis, an empty pair.
#include <set>

#include "exercise.h"

namespace attnlab::exercises {

AlignmentScores alignment_scores(const std::vector<AlignmentLink>& hypothesis, const Alignment& gold) {
  AlignmentScores scores;
  // TODO: the sets A, S and P; count |A ∩ S| and |A ∩ P|; then precision, recall and AER.
  return scores;
}

}  // namespace attnlab::exercises
