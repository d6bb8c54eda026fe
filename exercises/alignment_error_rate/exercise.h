// exercise.h — what the alignment_error_rate exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include <vector>

#include "data/alignment.h"

namespace attnlab::exercises {

// The three rates of one sentence pair (Och & Ney 2003, §5).
struct AlignmentScores {
  double precision = 0;  // |A ∩ P| / |A|
  double recall = 0;     // |A ∩ S| / |S|
  double aer = 0;        // 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|)
};

// Scores the hypothesis A (links in any order; a link given twice is one link) against `gold`: gold.sure is S,
// gold.possible the links possible but not sure (P \ S). AlignmentLink and Alignment: src/data/alignment.h.
AlignmentScores alignment_scores(const std::vector<AlignmentLink>& hypothesis, const Alignment& gold);

}  // namespace attnlab::exercises
