// answer.cpp — the project's answer to the adam_step exercise. Try exercise.cpp first.
//
// The new moments are computed first and the update uses them (m̂ and v̂ come from this step's m and v); λ·p
// stays out of the gradient and shrinks p on its own (AdamW's decoupled decay, computed from p before the step).
// The library's Optimizer::step (src/train/optimizer.cpp) does the same for every parameter of a model at once,
// piece by piece on every thread; it shrinks p by lr·λ·p first and then subtracts the Adam step, the same sum.
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

void adam_step(std::vector<real>& p, const std::vector<real>& g, AdamState& state, const AdamSettings& settings) {
  state.t += 1;
  const double t = static_cast<double>(state.t);                    // this step's number: 1 for the first
  const double bias_correction1 = 1 - std::pow(settings.beta1, t);  // 1 − β₁ᵗ
  const double bias_correction2 = 1 - std::pow(settings.beta2, t);  // 1 − β₂ᵗ
  for (size_t j = 0; j < p.size(); ++j) {
    const double grad = g[j], decay = settings.weight_decay * p[j];   // g, and AdamW's λ·p beside it (not in g)
    const double m = settings.beta1 * state.m[j] + (1 - settings.beta1) * grad;          // β₁·m + (1 − β₁)·g
    const double v = settings.beta2 * state.v[j] + (1 - settings.beta2) * grad * grad;   // β₂·v + (1 − β₂)·g²
    const double m_hat = m / bias_correction1, v_hat = v / bias_correction2;            // the bias correction
    p[j] -= settings.lr * (m_hat / (std::sqrt(v_hat) + settings.eps) + decay);   // p − lr·m̂/(√v̂ + ε) − lr·λ·p
    state.m[j] = m;
    state.v[j] = v;
  }
}

}  // namespace attnlab::exercises
