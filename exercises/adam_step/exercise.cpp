// Exercise adam_step (chapter train): one step of the Adam optimizer (Kingma & Ba 2015).
//
// Plain gradient descent moves every number by the same multiple of its gradient, p ← p − lr·g. Adam keeps, for
// every number, two running averages of its gradient, and gives each number its own step size:
//
//   t ← t + 1                                   this step's number: 1 for the first step
//   m ← β₁·m + (1 − β₁)·g                       the first moment: a smoothed direction
//   v ← β₂·v + (1 − β₂)·g²                      the second moment: a smoothed squared size
//   m̂ = m / (1 − β₁ᵗ)     v̂ = v / (1 − β₂ᵗ)     bias correction: m and v start at 0, so early on they are too small
//   p ← p − lr · m̂ / (√v̂ + ε)
//
// A number whose gradients are tiny (a rarely seen word's embedding) still moves: its step is lr times a ratio of
// about ±1. The Transformer paper trains with β₁ = 0.9, β₂ = 0.98, ε = 10⁻⁹ (§5.3).
//
// Shapes: p, g, state.m and state.v all hold the same n numbers (every parameter of a model is such a flat run of
// numbers to the optimizer). Everything element by element; compute in double (std::pow, std::sqrt).
//
// Check:  tools/exercise.sh adam_step
//   runs three steps of yours and of the library's Optimizer (src/train/optimizer.h) on the same gradients and
//   compares p, m, v and t after each.
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

void adam_step(std::vector<real>& p, const std::vector<real>& g, AdamState& state, const AdamSettings& settings) {
  // TODO: t, then for every number j: m[j], v[j], and p[j].
}

}  // namespace attnlab::exercises
