// sampled.cpp — the rewards' sentence sums and the sum of the score-function terms (sampled.h says why).
#include "nn/sampled.h"

#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

double Rewards::sentence(int64_t b) const {
  double total = 0;
  for (int64_t t = 0; t < positions; ++t) total += log_p[static_cast<size_t>(b * positions + t)];
  return total;
}

const SampledChoice* SampledChoices::of(const Module& module) const {
  for (const SampledChoice& choice : choices) {
    if (choice.by == &module) return &choice;
  }
  return nullptr;
}

Tensor score_function_loss(const SampledChoices& sampled) {
  Tensor total;                                                               // [1], or undefined
  for (const SampledChoice& choice : sampled.choices) {
    if (!choice.score_function) continue;
    Tensor term = choice.score_function(sampled.rewards);
    if (term.defined()) total = total.defined() ? add(total, term) : term;
  }
  return total;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
