// exercise.h — what the beam_step exercise asks for: exercise.cpp (yours) and answer.cpp define it, check.cpp
// checks it.
#pragma once

#include <cstdint>
#include <vector>

namespace attnlab::exercises {

// A partial translation: its tokens so far (without bos) and log P(tokens | x).
struct LiveHypothesis {
  std::vector<int32_t> tokens;
  double log_prob = 0;
};

// live [R] hypotheses; log_probs [R, V] row-major: log p(v | live[r]) for every token v (−∞: impossible)
// → the k best extensions live[r] + v, best first.
std::vector<LiveHypothesis> beam_step(const std::vector<LiveHypothesis>& live, const std::vector<double>& log_probs,
                                      int64_t V, int64_t k);

}  // namespace attnlab::exercises
