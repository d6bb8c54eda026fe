// answer.cpp — the project's answer to the adam_step exercise. Try exercise.cpp first.
//
// The library's Optimizer::step (src/train/optimizer.cpp) does the same for every parameter of a model at once,
// piece by piece on every thread, with AdamW's decoupled weight decay as one more line.
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

void adam_step(std::vector<real>& p, const std::vector<real>& g, AdamState& state, const AdamSettings& settings) {
  state.t += 1;
  const double t = static_cast<double>(state.t);
  const double bias_correction1 = 1 - std::pow(settings.beta1, t);  // 1 − β₁ᵗ
  const double bias_correction2 = 1 - std::pow(settings.beta2, t);  // 1 − β₂ᵗ
  for (size_t j = 0; j < p.size(); ++j) {
    state.m[j] = settings.beta1 * state.m[j] + (1 - settings.beta1) * g[j];
    state.v[j] = settings.beta2 * state.v[j] + (1 - settings.beta2) * g[j] * g[j];
    const double m_hat = state.m[j] / bias_correction1;
    const double v_hat = state.v[j] / bias_correction2;
    p[j] -= settings.lr * m_hat / (std::sqrt(v_hat) + settings.eps);
  }
}

}  // namespace attnlab::exercises
