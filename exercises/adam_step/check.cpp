// check.cpp — adam_step against the library's Optimizer (train/optimizer.h): three steps on the same gradients,
// comparing t, m, v and p after each.
#include <algorithm>
#include <string>
#include <vector>

#include "check.h"
#include "exercise.h"
#include "train/optimizer.h"

namespace attnlab::exercises {
namespace {

const std::string hint = "The update, line by line, opens src/train/optimizer.h; Optimizer::step in "
                         "src/train/optimizer.cpp has it as code.";

void check_run(const AdamSettings& settings, const std::vector<std::vector<real>>& gradients) {
  const std::vector<real> start{0.5, -1.25, 2, 0, 0.01};
  const size_t n = start.size();
  Tensor parameter = Tensor::from_values({static_cast<int64_t>(n)}, start, /*requires_grad=*/true);   // [n]
  OptimizerOptions options;
  options.kind = OptimizerKind::adam;
  options.beta1 = settings.beta1;
  options.beta2 = settings.beta2;
  options.eps = settings.eps;
  Optimizer optimizer({{"w", parameter}}, options);

  std::vector<real> p = start;
  AdamState state{std::vector<real>(n, 0), std::vector<real>(n, 0), 0};
  std::vector<std::string> history{"settings: lr " + number(settings.lr) + ", β₁ " + number(settings.beta1) + ", β₂ " +
                                   number(settings.beta2) + ", ε " + number(settings.eps),
                                   "p before the first step: " + numbers(start)};
  for (size_t step = 0; step < gradients.size(); ++step) {
    const std::vector<real>& g = gradients[step];
    std::copy(g.begin(), g.end(), parameter.grad());                 // the library's parameter gets g …
    optimizer.step(settings.lr);
    adam_step(p, g, state, settings);                                // … and so does yours
    const std::vector<NamedTensor> moments = optimizer.state_tensors();   // exp_avg.w, exp_avg_sq.w

    history.push_back("step " + std::to_string(step + 1) + ": g = " + numbers(g));
    const std::string at = "after step " + std::to_string(step + 1);
    const Tensor m = Tensor::from_values({static_cast<int64_t>(n)}, state.m);   // [n]
    if (state.t == 0 && p == start && all_zero(m)) {
      fail(at + ": your adam_step changed nothing: t, m, v and p are as they were", history,
           "That is the shipped stub: fill in the TODO in exercises/adam_step/exercise.cpp. " + hint);
    }
    if (state.t != optimizer.steps()) {
      fail(at + ": t is " + std::to_string(state.t) + ", expected " + std::to_string(optimizer.steps()), history,
           "t counts the steps taken, this one included: t ← t + 1 first, so the first step has t = 1 (its bias "
           "correction divides by 1 − β).");
    }
    expect_same("m " + at, moments[0].tensor, m, {1e-12, 1e-10}, history, "m ← β₁·m + (1 − β₁)·g. " + hint);
    expect_same("v " + at, moments[1].tensor, Tensor::from_values({static_cast<int64_t>(n)}, state.v), {1e-12, 1e-10},
                history, "v ← β₂·v + (1 − β₂)·g², the square of the gradient. " + hint);
    expect_same("p " + at, parameter, Tensor::from_values({static_cast<int64_t>(n)}, p), {1e-12, 1e-10}, history,
                "m and v are right, so look at the update: m̂ = m / (1 − β₁ᵗ) and v̂ = v / (1 − β₂ᵗ) with this step's "
                "t, and p ← p − lr · m̂ / (√v̂ + ε) — ε is added after the square root. " + hint);
  }
}

void check() {
  const std::vector<std::vector<real>> gradients{{0.1, -2, 1e-4, 0, 5},     // sizes from 10⁻⁴ to 5, and a 0
                                                 {0.2, -1, -1e-4, 0.3, 5},
                                                 {-0.1, 0.5, 1e-4, 0.3, -5}};
  check_run(AdamSettings{1e-3, 0.9, 0.98, 1e-9}, gradients);         // the Transformer paper's
  check_run(AdamSettings{0.1, 0.5, 0.9, 1e-3}, gradients);           // ε and lr large enough to matter
}

}  // namespace
}  // namespace attnlab::exercises

int main() { return attnlab::exercises::run_check("adam_step", attnlab::exercises::hint, attnlab::exercises::check); }
