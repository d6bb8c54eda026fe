// gradcheck.cpp — analytic gradients from backward() against central differences.
#include "autograd/gradcheck.h"

#include <algorithm>
#include <cmath>

#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// L = Σ y ⊙ R, computed in double without recording a graph (used for the numeric side).
double weighted_sum(const Tensor& y, const std::vector<real>& weights) {
  double total = 0;
  for (size_t i = 0; i < weights.size(); ++i) total += static_cast<double>(y.data()[i]) * weights[i];
  return total;
}

}  // namespace

GradcheckResult run_gradcheck(const GradcheckCase& check, const GradcheckOptions& options) {
  GradcheckResult result;
  result.op = check.op;
  result.what = check.what;

  Generator gen(options.seed);
  std::vector<Tensor> inputs = check.make_inputs(gen);
  for (size_t k = 0; k < inputs.size(); ++k) {
    inputs[k].set_requires_grad(true);
    result.shapes += (k ? " " : "") + inputs[k].shape().str();
  }

  // Analytic: one forward with the graph, L = Σ y ⊙ R, one backward.
  Tensor y = check.apply(inputs);
  Tensor weights = Tensor::uniform(y.shape(), gen, -1, 1);          // R, same shape as y
  Tensor loss = sum(mul(y, weights));                               // [1]
  loss.backward();

  // Numeric: nudge every input number both ways, with no graph recorded.
  NoGradGuard no_grad;
  const double h = options.step;
  double worst_excess = -1;  // how far past the tolerance the worst number is (≤ 0: within it)
  for (size_t k = 0; k < inputs.size(); ++k) {
    Tensor& x = inputs[k];
    InputComparison cmp;
    cmp.shape = x.shape();
    if (!x.has_grad()) {
      result.problem = "input " + std::to_string(k) + " received no gradient";
      cmp.analytic.assign(static_cast<size_t>(x.numel()), 0.0);
    } else {
      cmp.analytic.assign(x.grad_values().begin(), x.grad_values().end());
    }
    for (int64_t i = 0; i < x.numel(); ++i) {
      real saved = x.data()[i];
      x.data()[i] = static_cast<real>(saved + h);
      double plus = weighted_sum(check.apply(inputs), weights.values());
      x.data()[i] = static_cast<real>(saved - h);
      double minus = weighted_sum(check.apply(inputs), weights.values());
      x.data()[i] = saved;
      double numeric = (plus - minus) / (2 * h);
      cmp.numeric.push_back(numeric);

      double analytic = cmp.analytic[static_cast<size_t>(i)];
      double abs_error = std::abs(analytic - numeric);
      double magnitude = std::max(std::abs(analytic), std::abs(numeric));
      result.max_abs_error = std::max(result.max_abs_error, abs_error);
      // Relative error only where the gradient is larger than the absolute tolerance: for a gradient that is
      // 0 up to rounding (1e-13 against 1e-11, say) the ratio means nothing, and the absolute error judges it.
      if (magnitude >= options.atol) result.max_rel_error = std::max(result.max_rel_error, abs_error / magnitude);
      worst_excess = std::max(worst_excess, abs_error - (options.atol + options.rtol * magnitude));
      if (!std::isfinite(analytic) || !std::isfinite(numeric)) {
        worst_excess = INFINITY;
        if (result.problem.empty()) {
          result.problem = "input " + std::to_string(k) + ", number " + std::to_string(i) + ": non-finite gradient (analytic " +
                           std::to_string(analytic) + ", numeric " + std::to_string(numeric) + ")";
        }
      }
    }
    result.inputs.push_back(std::move(cmp));
  }
  result.passed = result.problem.empty() && worst_excess <= 0;
  if (!result.passed && result.problem.empty()) {
    result.problem = "max abs error " + std::to_string(result.max_abs_error) + " exceeds the tolerance";
  }
  return result;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
