// check.cpp — sum_backward and mean_backward against the library's sum(x, axis) and mean(x, axis).
//
// The library's side: x with requires_grad, y = sum(x, axis) (then mean(x, axis)) from src/autograd/ops/
// reductions.cpp, and L = Σ y ⊙ g, so that backward() leaves ∂L/∂y = g and x.grad is the ∂x the exercise asks
// for. The first case reduces the middle axis of x [2, 3, 4], where outer, n and inner all differ: a mean divided
// by the wrong axis' size shows.
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "y[o, k] = Σ_i x[o, i, k] gives ∂x[o, i, k] = g[o, k] for EVERY i (the mean: g[o, k] / n, n the reduced axis' "
    "size); x seen as [outer, n, inner], element (o, i, k) at (o · n + i) · inner + k and g's (o, k) at "
    "o · inner + k. The library's backward is weighted_sum_along() in src/autograd/ops/reductions.cpp, whose "
    "opening comment explains the view.";
const std::string zero_hint =
    "Your ∂x is all zeros (the shipped stub): fill in the TODOs in exercises/reduction_backward/exercise.cpp. ";

// factor · g[o, k] at every x[o, i, k] (or, only_first, at x[o, 0, k] alone): the right ∂x and the mistakes'.
Tensor spread(const Tensor& g, const Shape& x_shape, int axis, real factor, bool only_first) {
  const int a = x_shape.normalize_axis(axis);
  int64_t outer = 1, inner = 1;
  for (int before = 0; before < a; ++before) outer *= x_shape[before];
  for (int after = a + 1; after < x_shape.rank(); ++after) inner *= x_shape[after];
  const int64_t n = x_shape[a];
  Tensor dx = Tensor::zeros(x_shape);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < (only_first ? 1 : n); ++i)
      for (int64_t k = 0; k < inner; ++k) dx.data()[(o * n + i) * inner + k] = factor * g.data()[o * inner + k];
  return dx;
}

const std::string not_broadcast_fix =
    "y[o, k] sums (or averages) ALL n numbers x[o, 0, k] … x[o, n − 1, k], so each of them gets the slice's g: "
    "loop i over the whole axis and write g[o, k] (the mean: g[o, k] / n) at every (o · n + i) · inner + k.";

std::vector<Mistake> sum_mistakes(const Tensor& g, const Shape& x_shape, int axis) {
  return {{"not_broadcast", "only the first number of each slice along the axis got g: g is not spread along the axis",
           spread(g, x_shape, axis, 1, true), not_broadcast_fix}};
}

std::vector<Mistake> mean_mistakes(const Tensor& g, const Shape& x_shape, int axis) {
  const int a = x_shape.normalize_axis(axis);
  const real n = static_cast<real>(x_shape[a]);
  std::vector<Mistake> mistakes{
      {"not_broadcast", "only the first number of each slice along the axis got g / n",
       spread(g, x_shape, axis, 1 / n, true), not_broadcast_fix},
      {"mean_missing_n", "the mean's ∂x is the sum's: the factor 1/n is missing", spread(g, x_shape, axis, 1, false),
       "y = (1/n) Σ_i x_i, so ∂y/∂x_i = 1/n: ∂x[o, i, k] = g[o, k] / n, n = x_shape[axis], the size of the axis the "
       "mean runs over."},
      {"mean_n_of_all", "∂x is g / (every number of x): n is x_shape.numel(), not the size of the axis",
       spread(g, x_shape, axis, 1 / static_cast<real>(x_shape.numel()), false),
       "a mean along one axis averages n = x_shape[axis] numbers (mean() of everything divides by numel(), this one "
       "does not): ∂x[o, i, k] = g[o, k] / x_shape[axis]."},
  };
  for (int other = 0; other < x_shape.rank(); ++other) {
    if (x_shape[other] == x_shape[a]) continue;
    mistakes.push_back({"mean_wrong_axis_n",
                        "∂x is g / " + std::to_string(x_shape[other]) + ": divided by the size of axis " +
                            std::to_string(other) + ", not of the axis " + std::to_string(a) + " the mean runs over",
                        spread(g, x_shape, axis, 1 / static_cast<real>(x_shape[other]), false),
                        "n is the size of the reduced axis: n = x_shape[axis] (" + std::to_string(x_shape[a]) +
                            " here), not x_shape.cols() nor the size of another axis."});
  }
  return mistakes;
}

struct Case {
  std::string what;
  Shape x_shape;
  int axis;
};

void check_case(const Case& c, bool first) {
  Generator gen(17);
  const Tensor x = Tensor::randn(c.x_shape, gen, 1, /*requires_grad=*/true);
  const Tensor y = sum(x, c.axis);                                           // x_shape without the axis
  const Tensor g = Tensor::randn(y.shape(), gen);                            // ∂loss/∂y, y's shape
  sum(mul(y, g)).backward();
  const Tensor sum_expected = Tensor::from_values(x.shape(), x.grad_values());   // x_shape
  x.zero_grad();
  sum(mul(mean(x, c.axis), g)).backward();
  const Tensor mean_expected = Tensor::from_values(x.shape(), x.grad_values());  // x_shape

  std::vector<std::string> input{"case: " + c.what};
  for (const std::string& line : tensor_lines("g", g)) input.push_back(line);
  const std::string where = " (x " + c.x_shape.str() + ", axis " + std::to_string(c.axis) + ")";

  const Tensor sum_yours = sum_backward(g, c.x_shape, c.axis);
  if (first) diagnose(sum_expected, sum_yours, sum_mistakes(g, c.x_shape, c.axis), input);
  expect_same("∂x of sum" + where, sum_expected, sum_yours, {1e-9, 1e-9}, input,
              all_zero(sum_yours) ? zero_hint + hint : hint);
  const Tensor mean_yours = mean_backward(g, c.x_shape, c.axis);
  if (first) diagnose(mean_expected, mean_yours, mean_mistakes(g, c.x_shape, c.axis), input);
  expect_same("∂x of mean" + where, mean_expected, mean_yours, {1e-9, 1e-9}, input,
              all_zero(mean_yours) ? zero_hint + hint : hint);
}

void check() {
  check_case({"x [2, 3, 4] along axis 1, seen as [outer 2, n 3, inner 4]; g is [2, 4]", {2, 3, 4}, 1}, true);
  check_case({"x [3, 5] along the last axis (−1), as a loss averages each row; g is [3]", {3, 5}, -1}, false);
  check_case({"x [4, 2] along axis 0, as a bias' gradient sums over the batch; g is [2]", {4, 2}, 0}, false);
  check_case({"x [6] along its only axis; g is [1]", {6}, 0}, false);
  check_case({"x [2, 3, 2, 4] along axis 2 (−2); g is [2, 3, 4]", {2, 3, 2, 4}, -2}, false);
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("reduction_backward", attnlab::exercises::hint, attnlab::exercises::check);
}
