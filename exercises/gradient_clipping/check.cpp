// check.cpp — clip_by_global_norm against the library's clip_grad_norm (train/clip.h).
//
// Each case is a few parameters of a small model, each with a gradient. The library clips the parameters' gradient
// buffers, yours clips the same numbers as flat lists; then the gradients after clipping, laid end to end, form a
// Tensor [N] — yours, the library's, and what each usual mistake makes of them (worked out here, one rule changed).
// When yours is a mistake's, the check names it; otherwise it shows the first number that differs. The norm you
// return is compared the same way, after the gradients.
//
// The gradients are compared to 10⁻⁶ of their size: leaving out the 10⁻⁶ of max_norm / (‖g‖ + 10⁻⁶) changes them
// by 10⁻⁶ / ‖g‖, too little to see at ‖g‖ ≈ 6 (six digits would show the same numbers), so the check asks for it
// where it shows, on gradients whose norm is 5·10⁻⁴.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "check.h"
#include "exercise.h"
#include "train/clip.h"

namespace attnlab::exercises {
namespace {

using Gradients = std::vector<std::vector<real>>;

const std::string hint =
    "‖g‖ = √(Σ over every parameter, Σ over its numbers, g²), one number for all; when ‖g‖ > max_norm every "
    "gradient is multiplied by max_norm / (‖g‖ + 10⁻⁶), and ‖g‖ before clipping is returned. The library: "
    "clip_grad_norm in src/train/clip.cpp.";

struct Gradient {
  std::string name;                                                  // the parameter's
  Shape shape;
  std::vector<real> values;
};

struct Case {
  std::string what;
  std::vector<Gradient> gradients;
  double max_norm;
};

// The rules of clipping, and the one a usual mistake changes.
struct Rules {
  bool global = true;          // false: each parameter by its own norm
  bool square_root = true;     // false: ‖g‖² taken for ‖g‖
  bool only_above = true;      // false: scaled whatever the norm
  double eps = 1e-6;           // 0: max_norm / ‖g‖
};

double squares(const std::vector<real>& g) {
  double sum = 0;
  for (real x : g) sum += static_cast<double>(x) * static_cast<double>(x);
  return sum;
}

void scale_by(std::vector<real>& g, double norm, double max_norm, Rules rules) {
  if (rules.only_above && norm <= max_norm) return;
  for (real& x : g) x = static_cast<real>(x * (max_norm / (norm + rules.eps)));
}

Gradients clipped_by(Gradients gradients, double max_norm, Rules rules) {
  auto measure = [&](double sum) { return rules.square_root ? std::sqrt(sum) : sum; };
  if (!rules.global) {
    for (std::vector<real>& g : gradients) scale_by(g, measure(squares(g)), max_norm, rules);
    return gradients;
  }
  double sum = 0;
  for (const std::vector<real>& g : gradients) sum += squares(g);
  for (std::vector<real>& g : gradients) scale_by(g, measure(sum), max_norm, rules);
  return gradients;
}

// The gradients laid end to end: a Tensor [N].
Tensor end_to_end(const Gradients& gradients) {
  std::vector<real> all;
  for (const std::vector<real>& g : gradients) all.insert(all.end(), g.begin(), g.end());
  return Tensor::from_values({static_cast<int64_t>(all.size())}, all);
}

std::vector<Mistake> gradient_mistakes(const Gradients& gradients, double max_norm) {
  auto gives = [&](Rules rules) { return end_to_end(clipped_by(gradients, max_norm, rules)); };
  return {
      {"per_tensor_norm", "you clip each parameter by its own norm, not all of them by one global norm",
       gives({false, true, true, 1e-6}),
       "sum the squares over every parameter first, take one ‖g‖, and scale every gradient by the same "
       "max_norm / (‖g‖ + 10⁻⁶). Clipped one by one, a parameter whose gradient is small on its own keeps it while "
       "the others shrink, and the direction of g turns."},
      {"squared_norm", "you use ‖g‖² as the norm: the square root is missing", gives({true, false, true, 1e-6}),
       "‖g‖ = √(Σ g²): take the square root of the sum of squares before you compare it with max_norm and divide "
       "by it."},
      {"scales_below_threshold", "you scale the gradients although ‖g‖ is below max_norm",
       gives({true, true, false, 1e-6}),
       "clip only when ‖g‖ > max_norm: below it the gradients stay as they are (clipping bounds the step, it never "
       "stretches it)."},
      {"no_epsilon", "you scale by max_norm / ‖g‖: the library's 10⁻⁶ is missing", gives({true, true, true, 0}),
       "the factor is max_norm / (‖g‖ + 10⁻⁶), as in the library and PyTorch: the 10⁻⁶ keeps the division finite "
       "and the clipped norm just under max_norm."},
  };
}

std::vector<Mistake> norm_mistakes(const Gradients& gradients, double max_norm) {
  double sum = 0;
  for (const std::vector<real>& g : gradients) sum += squares(g);
  double after = 0;
  for (const std::vector<real>& g : clipped_by(gradients, max_norm, {})) after += squares(g);
  return {
      {"squared_norm", "the norm you return is ‖g‖²: the square root is missing", as_tensor({sum}),
       "return ‖g‖ = √(Σ g²), measured before clipping."},
      {"norm_after_clipping", "the norm you return is measured after clipping (about max_norm)",
       as_tensor({std::sqrt(after)}),
       "return ‖g‖ as it was before clipping: the trainer logs it, and a norm far above max_norm is the sign of a "
       "bad batch that clipping has hidden."},
  };
}

void check_case(const Case& c) {
  std::vector<NamedParameter> parameters;
  Gradients yours;
  std::vector<std::string> input{c.what + ", max_norm " + number(c.max_norm) + ":"};
  for (const Gradient& g : c.gradients) {
    Tensor parameter = Tensor::zeros(g.shape, /*requires_grad=*/true);   // its value does not matter here
    std::copy(g.values.begin(), g.values.end(), parameter.grad());   // the library's parameter gets the gradient …
    parameters.push_back({g.name, parameter});
    yours.push_back(g.values);                                       // … and so do you
    for (const std::string& line : tensor_lines("∂" + g.name, Tensor::from_values(g.shape, g.values))) {
      input.push_back(line);
    }
  }
  const Gradients before = yours;
  const double expected_norm = clip_grad_norm(parameters, c.max_norm);
  const double your_norm = clip_by_global_norm(yours, c.max_norm);
  Gradients expected_gradients;
  for (const NamedParameter& p : parameters) {
    expected_gradients.emplace_back(p.tensor.grad(), p.tensor.grad() + p.tensor.numel());
  }
  const Tensor expected = end_to_end(expected_gradients);            // [N]

  std::vector<std::string> with_layout = input;
  with_layout.push_back("(the gradients after clipping, laid end to end in the order above)");
  const Tolerance tolerance{1e-15, 1e-6};
  if (yours.size() == before.size()) {
    diagnose(expected, end_to_end(yours), gradient_mistakes(before, c.max_norm), with_layout, tolerance);
  }
  const bool stub = your_norm == 0 && yours == before;
  const std::string why = stub ? "Your clip_by_global_norm returns 0 and leaves the gradients as they were (the "
                                 "shipped stub): fill in the TODO in exercises/gradient_clipping/exercise.cpp. " + hint
                               : hint;
  expect_same("g after clipping", expected, end_to_end(yours), tolerance, with_layout, why);

  diagnose(as_tensor({expected_norm}), as_tensor({your_norm}), norm_mistakes(before, c.max_norm), input,
           {1e-12, 1e-6});
  if (!close(expected_norm, your_norm, {1e-13, 1e-11})) {
    input.push_back("‖g‖ before clipping: expected " + number(expected_norm) + ", yours " + number(your_norm));
    fail("the norm you return differs (the gradients are right)", input, why);
  }
}

void check() {
  const std::vector<Case> cases{
      // ‖g‖ ≈ 6.4 over all three; on its own, the bias's gradient is below max_norm and the others above it.
      {"three parameters, clipped together",
       {{"layer.weight", {2, 3}, {3, -4, 1, 2, 0.5, -2}}, {"layer.bias", {3}, {0.3, -0.1, 0.2}},
        {"norm.weight", {2}, {1.5, 2}}},
       1},
      {"the same gradients below max_norm: nothing changes",
       {{"layer.weight", {2, 3}, {3, -4, 1, 2, 0.5, -2}}, {"layer.bias", {3}, {0.3, -0.1, 0.2}},
        {"norm.weight", {2}, {1.5, 2}}},
       10},
      {"small gradients (‖g‖ ≈ 5·10⁻⁴), where the 10⁻⁶ shows",
       {{"embedding.weight", {3, 2}, {2e-4, -1e-4, 0, 3e-4, 1e-4, -2e-4}},
        {"proj.bias", {4}, {1e-4, 2e-4, -2e-4, 1e-4}}},
       1e-4},
      {"one parameter", {{"w", {5}, {0.6, -0.8, 0, 1.2, 0.4}}}, 0.5},
  };
  for (const Case& c : cases) check_case(c);
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("gradient_clipping", attnlab::exercises::hint,
                                       attnlab::exercises::check);
}
