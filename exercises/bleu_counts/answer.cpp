// answer.cpp — the project's answer to the bleu_counts exercise. Try exercise.cpp first.
//
// The n-grams of a sentence of L tokens start at 0 … L − n: the last one ends on the last token. Each distinct
// n-gram of the hypothesis then earns min(its count, the reference's count); the total counts every n-gram.
// The library counts every order at once, keying each n-gram by its tokens joined with a space (13a tokens hold
// no spaces): bleu_sentence_stats in src/decode/bleu.cpp.
#include <algorithm>
#include <map>

#include "exercise.h"

namespace attnlab::exercises {

namespace {

using Ngram = std::vector<std::string>;

// How often each n-gram occurs in `tokens`.
std::map<Ngram, int64_t> ngram_counts(const std::vector<std::string>& tokens, size_t n) {
  std::map<Ngram, int64_t> counts;
  for (size_t start = 0; start + n <= tokens.size(); ++start) {   // the last n-gram is tokens[L − n … L − 1]
    ++counts[Ngram(tokens.begin() + static_cast<std::ptrdiff_t>(start),
                   tokens.begin() + static_cast<std::ptrdiff_t>(start + n))];
  }
  return counts;
}

}  // namespace

NgramCounts clipped_ngram_counts(const std::vector<std::string>& hypothesis, const std::vector<std::string>& reference,
                                 int n) {
  const std::map<Ngram, int64_t> reference_counts = ngram_counts(reference, static_cast<size_t>(n));
  NgramCounts counts;
  for (const auto& [ngram, count] : ngram_counts(hypothesis, static_cast<size_t>(n))) {
    counts.total += count;                                           // every hypothesis n-gram …
    if (auto found = reference_counts.find(ngram); found != reference_counts.end()) {
      counts.correct += std::min(count, found->second);              // … earns at most the reference's count
    }
  }
  return counts;
}

}  // namespace attnlab::exercises
