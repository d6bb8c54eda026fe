// answer.cpp — the project's answer to the beam_step exercise. Try exercise.cpp first.
//
// Every candidate, then a partial sort for the best k: R · V candidates (32,000 for a beam of 4 over 8,000
// words). The library avoids the long list: no hypothesis can place more than k candidates among the best k, so it
// first keeps each row's best k in a small heap (best_candidates in src/decode/beam_search.cpp).
#include <algorithm>
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

std::vector<LiveHypothesis> beam_step(const std::vector<LiveHypothesis>& live, const std::vector<double>& log_probs,
                                      int64_t V, int64_t k) {
  struct Candidate {
    double log_prob;                                                 // log P(live[from].tokens, token)
    size_t from;
    int32_t token;
  };
  std::vector<Candidate> candidates;
  for (size_t r = 0; r < live.size(); ++r) {
    for (int64_t v = 0; v < V; ++v) {
      const double log_p = log_probs[r * static_cast<size_t>(V) + static_cast<size_t>(v)];   // log p(v | live[r])
      if (std::isinf(log_p) && log_p < 0) continue;                  // impossible token
      candidates.push_back({live[r].log_prob + log_p, r, static_cast<int32_t>(v)});
    }
  }
  auto better = [](const Candidate& a, const Candidate& b) {         // higher log P; ties: earlier row, smaller token
    if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
    if (a.from != b.from) return a.from < b.from;
    return a.token < b.token;
  };
  const size_t keep = std::min(candidates.size(), static_cast<size_t>(k));
  const auto last_kept = candidates.begin() + static_cast<std::ptrdiff_t>(keep);
  std::partial_sort(candidates.begin(), last_kept, candidates.end(), better);   // the best `keep`, best first

  std::vector<LiveHypothesis> kept;
  for (size_t c = 0; c < keep; ++c) {
    LiveHypothesis extended = live[candidates[c].from];
    extended.tokens.push_back(candidates[c].token);
    extended.log_prob = candidates[c].log_prob;
    kept.push_back(std::move(extended));
  }
  return kept;
}

}  // namespace attnlab::exercises
