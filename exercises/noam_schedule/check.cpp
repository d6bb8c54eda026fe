// check.cpp — noam_learning_rate against the library's learning_rate() under schedule: noam (train/schedule.h).
//
// Each case is one (factor, d_model, warmup) and a few steps around the peak at s = warmup; the rates at those
// steps form a Tensor [steps] — yours, the library's, and what each usual mistake gives (the formula with one
// thing changed, worked out here). When yours is a mistake's, the check names it; otherwise it shows the first
// step that differs.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "check.h"
#include "exercise.h"
#include "train/schedule.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "lr(s) = factor · d_model^−½ · min(s^−½, s · warmup^−³ᐟ²), with s = 1 for the first step: the two terms meet "
    "at s = warmup, the peak factor · (d_model · warmup)^−½. The library: learning_rate in src/train/schedule.cpp.";

struct Case {
  std::string what;
  double factor;
  int64_t d_model, warmup;
  std::vector<int64_t> steps;
};

// The formula with one thing changed, as the usual mistakes change it.
struct Rules {
  double warmup_power = -1.5;   // −0.5: warmup^−½
  int64_t step_offset = 0;      // −1: steps counted from 0
  bool max_not_min = false;
  double d_model_power = -0.5;  // 0.5: d_model^½
  bool with_factor = true;
};

Tensor rates_by(const Case& c, Rules rules) {
  std::vector<double> rates;
  for (int64_t step : c.steps) {
    const double s = static_cast<double>(step + rules.step_offset);
    const double warm_up = s * std::pow(static_cast<double>(c.warmup), rules.warmup_power);
    const double decay = std::pow(s, -0.5);
    const double term = rules.max_not_min ? std::max(decay, warm_up) : std::min(decay, warm_up);
    rates.push_back((rules.with_factor ? c.factor : 1) * std::pow(static_cast<double>(c.d_model), rules.d_model_power) *
                    term);
  }
  return as_tensor(rates);
}

std::vector<Mistake> usual_mistakes(const Case& c) {
  return {
      {"warmup_power_half", "your warm-up term is s · warmup^−½, not s · warmup^−³ᐟ²",
       rates_by(c, {-0.5, 0, false, -0.5, true}),
       "the warm-up line is s · warmup^−³ᐟ² (std::pow(warmup, -1.5)): it must meet s^−½ at s = warmup, and "
       "warmup · warmup^−³ᐟ² = warmup^−½ does. With warmup^−½ the line is warmup times steeper and peaks at "
       "s = √warmup."},
      {"step_from_zero", "your rates are those of the step before: you count steps from 0",
       rates_by(c, {-1.5, -1, false, -0.5, true}),
       "the step s is the optimizer step just taken, 1 for the first (the library refuses s = 0): use step as it "
       "is, and the first step's rate is factor · d_model^−½ · warmup^−³ᐟ², not 0."},
      {"max_not_min", "you take the larger of the two terms: max for min", rates_by(c, {-1.5, 0, true, -0.5, true}),
       "min(s^−½, s · warmup^−³ᐟ²): the smaller term rules — the rising line during the warm-up, the 1/√s decay "
       "after it. With max the rate starts high and ends rising."},
      {"d_model_power_positive", "your rate is d_model times too large: d_model^½ for d_model^−½",
       rates_by(c, {-1.5, 0, false, 0.5, true}),
       "the rate scales with d_model^−½ = 1/√d_model (std::pow(d_model, -0.5)): a wider model takes smaller steps."},
      {"factor_missing", "your rate leaves out the factor", rates_by(c, {-1.5, 0, false, -0.5, false}),
       "multiply by factor (train.lr under schedule: noam): lr(s) = factor · d_model^−½ · min(…)."},
  };
}

std::vector<real> steps_of(const Case& c) { return std::vector<real>(c.steps.begin(), c.steps.end()); }

void check_case(const Case& c) {
  TrainConfig config;
  config.schedule = ScheduleKind::noam;
  config.lr = c.factor;
  config.warmup_steps = c.warmup;
  std::vector<double> expected_rates, your_rates;
  for (int64_t step : c.steps) {
    expected_rates.push_back(learning_rate(config, static_cast<double>(step), c.d_model));
    your_rates.push_back(noam_learning_rate(c.factor, c.d_model, c.warmup, step));
  }
  const Tensor expected = as_tensor(expected_rates), yours = as_tensor(your_rates);   // [steps]
  std::vector<std::string> input{c.what + ": factor " + number(c.factor) + ", d_model " + std::to_string(c.d_model) +
                                     ", warmup " + std::to_string(c.warmup),
                                 "steps " + numbers(steps_of(c), 12) + " (the rates at these steps)"};
  diagnose(expected, yours, usual_mistakes(c), input, {1e-15, 1e-10});

  for (size_t i = 0; i < c.steps.size(); ++i) {
    if (close(expected_rates[i], your_rates[i], {1e-15, 1e-12})) continue;
    std::vector<std::string> details = input;
    details.push_back("at step " + std::to_string(c.steps[i]) + ": expected " + number(expected_rates[i]) +
                      ", yours " + number(your_rates[i]));
    details.push_back("expected: " + numbers(expected.data(), expected.numel(), 12));
    details.push_back("yours:    " + numbers(yours.data(), yours.numel(), 12));
    if (c.warmup > 0) {
      details.push_back("the peak, at s = warmup: factor · (d_model · warmup)^−½ = " +
                        number(c.factor / std::sqrt(static_cast<double>(c.d_model * c.warmup))));
    }
    const std::string why =
        all_zero(yours) ? "Your rates are all 0 (the shipped stub): fill in the TODO in "
                          "exercises/noam_schedule/exercise.cpp. " + hint
                        : hint;
    fail("the learning rate at step " + std::to_string(c.steps[i]) + " differs", details, why);
  }
}

void check() {
  const std::vector<Case> cases{
      {"a small model, factor ≠ 1", 2, 64, 10, {1, 2, 5, 9, 10, 11, 20, 100, 1000}},
      {"the paper's", 1, 512, 4000, {1, 100, 3999, 4000, 4001, 10000, 100000}},
      {"the Annotated Transformer's second curve", 1, 512, 8000, {1, 4000, 8000, 8001, 20000}},
      {"the Annotated Transformer's third curve", 1, 256, 4000, {1, 4000, 4001, 20000}},
      {"no warm-up (warmup 0: the rate is factor · (d_model · s)^−½ from the first step)", 1, 128, 0, {1, 2, 10, 1000}},
  };
  for (const Case& c : cases) check_case(c);
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("noam_schedule", attnlab::exercises::hint, attnlab::exercises::check);
}
