// check.cpp — adam_step against the library's Optimizer (train/optimizer.h): three steps on the same gradients,
// comparing t, m, v and p after each, for AdamW with weight decay and for plain Adam.
//
// After each step the numbers form a table [3, n] — rows m, v, p after the step — yours, the library's, and what
// each usual mistake makes of the same step (worked out here with one rule changed, from the p, m, v before it).
// When yours is a mistake's table, the check names it; otherwise it says which of t, m, v, p differs first.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "check.h"
#include "exercise.h"
#include "train/optimizer.h"

namespace attnlab::exercises {
namespace {

const std::string hint = "The update, line by line, opens src/train/optimizer.h; Optimizer::step in "
                         "src/train/optimizer.cpp has it as code.";

// The rules of one step, and the one a usual mistake changes.
struct Rules {
  bool bias_correction = true;      // false: m̂ = m, v̂ = v
  int64_t t_offset = 0;             // −1: the correction uses the steps taken before this one (t from 0)
  bool eps_inside_sqrt = false;     // true: √(v̂ + ε) for √v̂ + ε
  bool moments_first = true;        // false: the step uses m and v of the step before, updated after it
  bool decay_in_gradient = false;   // true: λ·p added to g (L2) instead of AdamW's p ← p − lr·λ·p
};

// A number of the table for diagnose(): NaN (0/0 from a correction 1 − β⁰ = 0) shows as inf, so that it compares.
real shown(double x) { return std::isfinite(x) ? static_cast<real>(x) : std::numeric_limits<real>::infinity(); }

// m, v and p after step number t from p, m, v before it, under `rules`: a table [3, n].
Tensor step_table(const std::vector<real>& p, const std::vector<real>& g, const std::vector<real>& m,
                  const std::vector<real>& v, int64_t t, const AdamSettings& s, Rules rules) {
  const int64_t n = static_cast<int64_t>(p.size());
  Tensor table = Tensor::zeros({3, n});                               // [3, n]: rows m, v, p
  const double steps = static_cast<double>(t + rules.t_offset);
  const double correction1 = rules.bias_correction ? 1 - std::pow(s.beta1, steps) : 1;
  const double correction2 = rules.bias_correction ? 1 - std::pow(s.beta2, steps) : 1;
  for (int64_t j = 0; j < n; ++j) {
    const size_t i = static_cast<size_t>(j);
    const double grad = g[i] + (rules.decay_in_gradient ? s.weight_decay * p[i] : 0);
    const double decay = rules.decay_in_gradient ? 0 : s.weight_decay * p[i];
    const double m_new = s.beta1 * m[i] + (1 - s.beta1) * grad;
    const double v_new = s.beta2 * v[i] + (1 - s.beta2) * grad * grad;
    const double m_hat = (rules.moments_first ? m_new : m[i]) / correction1;
    const double v_hat = (rules.moments_first ? v_new : v[i]) / correction2;
    const double denominator = rules.eps_inside_sqrt ? std::sqrt(v_hat + s.eps) : std::sqrt(v_hat) + s.eps;
    table.data()[j] = shown(m_new);
    table.data()[n + j] = shown(v_new);
    table.data()[2 * n + j] = shown(p[i] - s.lr * (m_hat / denominator + decay));
  }
  return table;
}

std::vector<Mistake> usual_mistakes(const std::vector<real>& p, const std::vector<real>& g,
                                    const std::vector<real>& m, const std::vector<real>& v, int64_t t,
                                    const AdamSettings& s) {
  auto gives = [&](Rules rules) { return step_table(p, g, m, v, t, s, rules); };
  return {
      {"no_bias_correction", "your step uses m and v where m̂ and v̂ belong: no bias correction",
       gives({false, 0, false, true, false}),
       "m and v start at 0, so in the first steps they are too small (after step 1, m = (1 − β₁)·g): divide them, "
       "m̂ = m / (1 − β₁ᵗ) and v̂ = v / (1 − β₂ᵗ), and step with m̂ / (√v̂ + ε)."},
      {"t_from_zero", "your p is not a number after the step (NaN, shown as inf): the correction divides by 1 − β⁰ = 0",
       gives({true, -1, false, true, false}),
       "t counts the steps taken, this one included: t ← t + 1 first, then 1 − β₁ᵗ and 1 − β₂ᵗ with that t (the "
       "first step has t = 1, and 1 − β is not 0)."},
      {"eps_inside_sqrt", "your step divides by √(v̂ + ε), not by √v̂ + ε", gives({true, 0, true, true, false}),
       "ε is added after the square root: p ← p − lr · m̂ / (√v̂ + ε). Inside it, ε weighs as much as a gradient of "
       "size √ε (3·10⁻⁵ for ε = 10⁻⁹) — as the library and PyTorch write it, it only keeps the division finite."},
      {"moments_after_step", "your step uses m and v of the step before: you update them after the step",
       gives({true, 0, false, false, false}),
       "update m and v with this step's g first, then take the step with them: the first step (m = v = 0 before "
       "it) would otherwise not move p at all."},
      {"weight_decay_in_gradient", "your weight decay is added to the gradient (L2), not decoupled from it",
       gives({true, 0, false, true, true}),
       "AdamW shrinks p apart from the gradient: m and v see g alone, and p ← p − lr·λ·p − lr·m̂/(√v̂ + ε) with p "
       "before the step. λ·p in g would be divided by √v̂ like the gradient (Loshchilov & Hutter 2019)."},
  };
}

std::string settings_text(const AdamSettings& s) {
  return "settings: lr " + number(s.lr) + ", β₁ " + number(s.beta1) + ", β₂ " + number(s.beta2) + ", ε " +
         number(s.eps) + ", weight decay λ " + number(s.weight_decay) + (s.weight_decay > 0 ? " (AdamW)" : " (Adam)");
}

// The rows m, v, p of your state as a table [3, n].
Tensor your_table(const std::vector<real>& p, const AdamState& state) {
  std::vector<real> rows = state.m;
  rows.insert(rows.end(), state.v.begin(), state.v.end());
  rows.insert(rows.end(), p.begin(), p.end());
  for (real& x : rows) x = shown(x);
  return Tensor::from_values({3, static_cast<int64_t>(p.size())}, rows);
}

void check_run(const AdamSettings& settings, const std::vector<std::vector<real>>& gradients) {
  const std::vector<real> start{0.5, -1.25, 2, 0, 0.01};
  const int64_t n = static_cast<int64_t>(start.size());
  Tensor parameter = Tensor::from_values({n}, start, /*requires_grad=*/true);   // [n]
  OptimizerOptions options;
  options.kind = settings.weight_decay > 0 ? OptimizerKind::adamw : OptimizerKind::adam;
  options.beta1 = settings.beta1;
  options.beta2 = settings.beta2;
  options.eps = settings.eps;
  options.weight_decay = settings.weight_decay;
  Optimizer optimizer({{"w", parameter}}, options);

  std::vector<real> p = start;
  AdamState state{std::vector<real>(start.size(), 0), std::vector<real>(start.size(), 0), 0};
  std::vector<std::string> history{settings_text(settings), "p before the first step: " + numbers(start)};
  for (size_t step = 0; step < gradients.size(); ++step) {
    const std::vector<real>& g = gradients[step];
    const std::vector<real> p_before = p, m_before = state.m, v_before = state.v;
    std::copy(g.begin(), g.end(), parameter.grad());                 // the library's parameter gets g …
    optimizer.step(settings.lr);
    adam_step(p, g, state, settings);                                // … and so does yours
    const std::vector<NamedTensor> moments = optimizer.state_tensors();   // exp_avg.w, exp_avg_sq.w

    history.push_back("step " + std::to_string(step + 1) + ": g = " + numbers(g));
    const std::string at = "after step " + std::to_string(step + 1);
    const Tensor m = Tensor::from_values({n}, state.m);              // [n]
    if (state.t == 0 && p == start && all_zero(m)) {
      fail(at + ": your adam_step changed nothing: t, m, v and p are as they were", history,
           "That is the shipped stub: fill in the TODO in exercises/adam_step/exercise.cpp. " + hint);
    }
    if (state.t != optimizer.steps()) {
      fail(at + ": t is " + std::to_string(state.t) + ", expected " + std::to_string(optimizer.steps()), history,
           "t counts the steps taken, this one included: t ← t + 1 first, so the first step has t = 1 (its bias "
           "correction divides by 1 − β).");
    }
    // A usual mistake, named: yours against what each one makes of this step.
    std::vector<real> right_rows(moments[0].tensor.data(), moments[0].tensor.data() + n);
    right_rows.insert(right_rows.end(), moments[1].tensor.data(), moments[1].tensor.data() + n);
    right_rows.insert(right_rows.end(), parameter.data(), parameter.data() + n);
    std::vector<std::string> input{settings_text(settings),
                                   "step t = " + std::to_string(optimizer.steps()) + ", g = " + numbers(g),
                                   "before it: p = " + numbers(p_before) + ", m = " + numbers(m_before) +
                                       ", v = " + numbers(v_before),
                                   "(a table [3, " + std::to_string(n) + "]: rows m, v, p after the step)"};
    diagnose(Tensor::from_values({3, n}, right_rows), your_table(p, state),
             usual_mistakes(p_before, g, m_before, v_before, optimizer.steps(), settings), input, {1e-12, 1e-9});

    expect_same("m " + at, moments[0].tensor, m, {1e-12, 1e-10}, history, "m ← β₁·m + (1 − β₁)·g. " + hint);
    expect_same("v " + at, moments[1].tensor, Tensor::from_values({n}, state.v), {1e-12, 1e-10}, history,
                "v ← β₂·v + (1 − β₂)·g², the square of the gradient. " + hint);
    expect_same("p " + at, parameter, Tensor::from_values({n}, p), {1e-12, 1e-10}, history,
                "m and v are right, so look at the update: m̂ = m / (1 − β₁ᵗ) and v̂ = v / (1 − β₂ᵗ) with this step's "
                "t, and p ← p − lr · m̂ / (√v̂ + ε) − lr·λ·p — ε is added after the square root. " + hint);
  }
}

void check() {
  const std::vector<std::vector<real>> gradients{{0.1, -2, 1e-4, 0, 5},     // sizes from 10⁻⁴ to 5, and a 0
                                                 {0.2, -1, -1e-4, 0.3, 5},
                                                 {-0.1, 0.5, 1e-4, 0.3, -5}};
  check_run(AdamSettings{1e-3, 0.9, 0.98, 1e-9, 0.01}, gradients);   // the paper's β and ε, AdamW's decay
  check_run(AdamSettings{1e-3, 0.9, 0.98, 1e-9, 0}, gradients);      // the Transformer paper's Adam
  check_run(AdamSettings{0.1, 0.5, 0.9, 1e-3, 0.1}, gradients);      // ε, lr and λ large enough to matter
}

}  // namespace
}  // namespace attnlab::exercises

int main() { return attnlab::exercises::run_check("adam_step", attnlab::exercises::hint, attnlab::exercises::check); }
