// Exercise bleu_counts (chapter decode): BLEU's clipped n-gram counts.
//
// BLEU (Papineni et al. 2002) scores a translation by how many of its word n-grams (runs of n tokens) also
// appear in the reference. Counting plain matches would reward "the the the the the the the" against the
// reference "the cat is on the mat" with 7 matches out of 7. So each n-gram is *clipped*: it earns credit at
// most as many times as the reference has it.
//
//   total_n   = the number of n-grams of the hypothesis, repeats included: max(0, |hyp| − n + 1)
//   correct_n = Σ over the distinct n-grams g of the hypothesis of  min(count_hyp(g), count_ref(g))
//   p_n       = correct_n / total_n                        ("the the the …" above: p_1 = 2/7)
//
// BLEU then sums correct_n and total_n over the sentences of a corpus and combines p_1 … p_4 with a brevity
// penalty (src/decode/bleu.h, bleu_from_stats); here you write the counts for one sentence pair and one n.
//
// Input: the hypothesis and the reference as lists of tokens; n in 1 … 4. An n-gram can be a
// std::vector<std::string> (or its tokens joined with a space), and std::map counts them.
//
// Check:  tools/exercise.sh bleu_counts
//   compares your counts with the library's bleu_sentence_stats (src/decode/bleu.cpp) for n = 1 … 4 on a few
//   sentence pairs, among them the "the the the" one.
#include <algorithm>
#include <map>

#include "exercise.h"

namespace attnlab::exercises {

NgramCounts clipped_ngram_counts(const std::vector<std::string>& hypothesis, const std::vector<std::string>& reference,
                                 int n) {
  NgramCounts counts;
  // TODO: count the n-grams of each side, then total and clipped correct.
  return counts;
}

}  // namespace attnlab::exercises
