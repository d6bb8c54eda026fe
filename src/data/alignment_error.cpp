// alignment_error.cpp — precision, recall and the alignment error rate of a hypothesis A against the gold S ⊆ P
// (Och & Ney 2003, §5; the equations open alignment_error.h).
//
//   precision = |A ∩ P| / |A|      recall = |A ∩ S| / |S|      AER = 1 − (|A ∩ S| + |A ∩ P|) / (|A| + |S|)
//
// The counting, step by step:
//   1. A, S and P become sets of links (a link listed twice is one link; P = S ∪ the possible links);
//   2. a score over one phenomenon keeps, in all three, only the links whose target word is the phenomenon's;
//   3. |A|, |S|, and for each link of A whether it is in S and whether it is in P.
// A sure link is possible too, so a link of A ∩ S counts in both hits: an A that is exactly S scores
// (|S| + |S|) / (|S| + |S|), AER 0. A possible link only helps precision; a sure link missed costs recall.
//
// The hard alignment of a soft one (argmax_alignment) links each target word to the source word it weighs most,
// the row of the attention picture's largest weight: weights [target_words, source_words], row-major.
#include "data/alignment_error.h"

#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

AlignmentCounts& AlignmentCounts::operator+=(const AlignmentCounts& other) {
  hypothesis += other.hypothesis;
  sure += other.sure;
  hits_sure += other.hits_sure;
  hits_possible += other.hits_possible;
  return *this;
}

// |A| = 0: nothing claimed, nothing wrong.
double AlignmentCounts::precision() const {
  return hypothesis == 0 ? 1.0 : static_cast<double>(hits_possible) / static_cast<double>(hypothesis);
}

// |S| = 0: nothing to find, nothing missed.
double AlignmentCounts::recall() const {
  return sure == 0 ? 1.0 : static_cast<double>(hits_sure) / static_cast<double>(sure);
}

// |A| + |S| = 0: no link claimed and none to find, no error.
double AlignmentCounts::aer() const {
  const int64_t denominator = hypothesis + sure;  // |A| + |S|
  if (denominator == 0) return 0.0;
  return 1.0 - static_cast<double>(hits_sure + hits_possible) / static_cast<double>(denominator);
}

namespace {

// True when `link` counts: every link does when `target_words` is null, else those whose target word is listed.
bool kept(const AlignmentLink& link, const std::set<int32_t>* target_words) {
  return target_words == nullptr || target_words->count(link.target) > 0;
}

// The links of `links` that count, as a set: a link given twice is one link.
std::set<AlignmentLink> kept_links(const std::vector<AlignmentLink>& links, const std::set<int32_t>* target_words) {
  std::set<AlignmentLink> result;
  for (const AlignmentLink& link : links) {
    if (kept(link, target_words)) result.insert(link);
  }
  return result;
}

AlignmentCounts count_kept(const std::vector<AlignmentLink>& hypothesis, const Alignment& gold,
                           const std::set<int32_t>* target_words) {
  const std::set<AlignmentLink> A = kept_links(hypothesis, target_words);
  const std::set<AlignmentLink> S = kept_links(gold.sure, target_words);
  std::set<AlignmentLink> P = kept_links(gold.possible, target_words);
  P.insert(S.begin(), S.end());  // S ⊆ P: a sure link is possible too

  AlignmentCounts counts;
  counts.hypothesis = static_cast<int64_t>(A.size());  // |A|
  counts.sure = static_cast<int64_t>(S.size());        // |S|
  for (const AlignmentLink& link : A) {
    counts.hits_sure += static_cast<int64_t>(S.count(link));      // |A ∩ S|
    counts.hits_possible += static_cast<int64_t>(P.count(link));  // |A ∩ P|
  }
  return counts;
}

}  // namespace

AlignmentCounts count_alignment(const std::vector<AlignmentLink>& hypothesis, const Alignment& gold) {
  return count_kept(hypothesis, gold, nullptr);
}

AlignmentCounts count_alignment(const std::vector<AlignmentLink>& hypothesis, const Alignment& gold,
                                const std::vector<int32_t>& target_words) {
  const std::set<int32_t> words(target_words.begin(), target_words.end());
  return count_kept(hypothesis, gold, &words);
}

std::vector<AlignmentLink> argmax_alignment(const real* weights, int64_t target_words, int64_t source_words) {
  const int64_t most = std::numeric_limits<int32_t>::max();  // a link holds its word indices as int32
  if (target_words < 0 || source_words < 0 || target_words > most || source_words > most) {
    throw Error("argmax_alignment: weights [" + std::to_string(target_words) + ", " + std::to_string(source_words) +
                "] is not a pair's shape; expected [target_words, source_words], each in 0 … " +
                std::to_string(most));
  }
  if (weights == nullptr && target_words > 0 && source_words > 0) {
    throw Error("argmax_alignment: weights is null, but its shape [" + std::to_string(target_words) + ", " +
                std::to_string(source_words) + "] holds numbers; pass the attention weights of the pair");
  }
  std::vector<AlignmentLink> links;
  for (int64_t j = 0; j < target_words; ++j) {
    const real* row = weights + j * source_words;  // [source_words]: how much target word j weighs each source word
    int64_t best = -1;
    bool any_weight = false;                       // a finite non-zero number in the row
    for (int64_t i = 0; i < source_words; ++i) {
      if (!std::isfinite(row[i])) continue;
      any_weight = any_weight || row[i] != 0;
      if (best < 0 || row[i] > row[best]) best = i;  // strictly larger: the first of equal weights wins
    }
    if (any_weight) links.push_back({static_cast<int32_t>(best), static_cast<int32_t>(j)});
  }
  return links;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
