// Exercise beam_step (chapter decode): one step of beam search.
//
// Greedy decoding commits to the likeliest token at every step, and a word that looks best now can lead to a
// worse sentence. Beam search keeps the k best partial translations ("hypotheses") instead of one. One step:
//
//   expand   extend every live hypothesis y by every token v of the vocabulary
//   score    log P(y, v) = log P(y) + log p(v | y)            a product of probabilities, as a sum of logs
//   keep     the k candidates with the highest log P, best first
//
// Logs, not probabilities: a sentence's probability is a product of many numbers below 1 and soon underflows;
// its log is a sum. A token the model rules out has log p = −∞ and must never be kept.
//
// Shapes: live has R hypotheses (1 at the first step: the empty prefix, log P = 0). log_probs is [R, V]
// row-major: log p(v | live[r]) is log_probs[r * V + v]. Return min(k, number of possible candidates)
// hypotheses, each live[r].tokens with v appended and its log P, best first. (No two candidates of the check
// have the same log P; the library breaks ties by the earlier hypothesis, then the smaller token.)
//
// The library's search (src/decode/beam_search.h) does more around this step: it keeps the best 2k, sets aside
// those that end in eos as finished, and scores finished ones with a length penalty.
//
// Check:  tools/exercise.sh beam_step
//   runs the library's beam_search on fixed tables of log-probabilities and compares, step by step, the
//   hypotheses it keeps with the ones your beam_step keeps from the same live hypotheses.
#include <algorithm>
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

std::vector<LiveHypothesis> beam_step(const std::vector<LiveHypothesis>& live, const std::vector<double>& log_probs,
                                      int64_t V, int64_t k) {
  std::vector<LiveHypothesis> kept;
  // TODO: expand, score, keep the best k (std::sort or std::partial_sort with your own comparison helps).
  return kept;
}

}  // namespace attnlab::exercises
