// alignment_error.h — how well an alignment A agrees with the gold: precision, recall and the alignment error
// rate of Och & Ney (2003, "A Systematic Comparison of Various Statistical Alignment Models", §5), the measure
// word-alignment studies report.
//
// With S the gold's sure links and P ⊇ S its possible links (alignment.h):
//   precision = |A ∩ P| / |A|          a link the gold allows is not wrong
//   recall    = |A ∩ S| / |S|          only the sure links must be found
//   AER       = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|)
// AER is 0 when A contains every sure link and nothing outside P. Over a corpus the counts are summed first and
// the rates taken once (a long sentence weighs more), as Och & Ney do. Conventions for empty sets: with |A| = 0
// precision is 1 (nothing claimed, nothing wrong); with |S| = 0 recall is 1; with |A| + |S| = 0 AER is 0.
//
// A score over one phenomenon only (alignment.h's tags) keeps the links, of A and of the gold, whose target word
// is one of the phenomenon's.
#pragma once

#include <cstdint>
#include <vector>

#include "data/alignment.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// The counts behind the rates; += sums them over sentences.
struct AlignmentCounts {
  int64_t hypothesis = 0;     // |A|
  int64_t sure = 0;           // |S|
  int64_t hits_sure = 0;      // |A ∩ S|
  int64_t hits_possible = 0;  // |A ∩ P| (sure links included)
  AlignmentCounts& operator+=(const AlignmentCounts& other);
  double precision() const;
  double recall() const;
  double aer() const;
};

// The counts of hypothesis A (links in any order; a link given twice counts once) against `gold`.
AlignmentCounts count_alignment(const std::vector<AlignmentLink>& hypothesis, const Alignment& gold);

// The same restricted to the links whose target word is in `target_words` (sorted).
AlignmentCounts count_alignment(const std::vector<AlignmentLink>& hypothesis, const Alignment& gold,
                                const std::vector<int32_t>& target_words);

// A hard alignment from soft scores: weights [target_words, source_words], row-major; each target word is linked
// to the source word of its largest score (the first, on a tie). A row of all zeros or non-finite numbers gets no
// link.
std::vector<AlignmentLink> argmax_alignment(const real* weights, int64_t target_words, int64_t source_words);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
