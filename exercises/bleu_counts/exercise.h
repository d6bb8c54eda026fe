// exercise.h — what the bleu_counts exercise asks for: exercise.cpp (yours) and answer.cpp define it, check.cpp
// checks it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::exercises {

struct NgramCounts {
  int64_t correct = 0;  // clipped matches: Σ over its distinct n-grams g of min(count_hyp(g), count_ref(g))
  int64_t total = 0;    // every n-gram of the hypothesis, repeats included
};

// The n-gram counts (1 ≤ n ≤ 4) of a tokenised hypothesis against a tokenised reference.
NgramCounts clipped_ngram_counts(const std::vector<std::string>& hypothesis, const std::vector<std::string>& reference,
                                 int n);

}  // namespace attnlab::exercises
