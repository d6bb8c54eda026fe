// gradcheck_explain.cpp — `attnlab gradcheck --op NAME --explain`: one gradient check, shown step by step.
//
// The tour a learner would do by hand with a notebook: read the op's formula and its derivative, take a tiny
// input, compute the output y, pick the weights R of the scalar L = Σ y ⊙ R (so the gradient arriving at y is
// g = ∂L/∂y = R), then put, for every input number, the backward's ∂L/∂x next to the central difference
// (L(x + h) − L(x − h)) / 2h. The difference column is what `attnlab gradcheck` judges.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "autograd/gradcheck.h"
#include "autograd/graph.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr size_t shown_rows = 6;      // rows of a tensor printed (a row = the last axis)
constexpr size_t shown_columns = 8;   // numbers of a row printed
constexpr size_t shown_gradients = 12;  // gradient lines per input

std::string formatted(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// A tensor as its shape and then its rows (the last axis), a few of each.
std::string rows_of(const std::string& label, const Tensor& t) {
  std::string text = "  " + label + " " + t.shape().str() + "\n";
  const size_t columns = static_cast<size_t>(t.shape().cols());
  const size_t rows = static_cast<size_t>(t.shape().rows());
  for (size_t r = 0; r < std::min(rows, shown_rows); ++r) {
    text += "    ";
    for (size_t c = 0; c < std::min(columns, shown_columns); ++c) {
      text += formatted("%10.4f", static_cast<double>(t.values()[r * columns + c]));
    }
    if (columns > shown_columns) text += "  … " + std::to_string(columns - shown_columns) + " more";
    text += "\n";
  }
  if (rows > shown_rows) text += "    … " + std::to_string(rows - shown_rows) + " more rows\n";
  return text;
}

}  // namespace

void explain_op(std::vector<GradcheckCase>& cases, const std::string& op, const std::string& formula,
                const std::string& derivative) {
  bool found = false;
  for (GradcheckCase& c : cases) {
    if (c.op != op) continue;
    c.formula = formula;
    c.derivative = derivative;
    found = true;
  }
  if (!found) throw Error("explain_op: no gradient check is called '" + op + "'");
}

std::string explain_gradcheck(const GradcheckCase& check, const GradcheckOptions& options) {
  std::string text = "op " + check.op + " — case: " + check.what + "\n\n";
  text += "forward:\n  " + check.formula + "\n";
  text += "backward (g = ∂L/∂y, the gradient arriving at the output):\n  " + check.derivative + "\n\n";

  // The same inputs, output and weights run_gradcheck draws: one generator, in the same order.
  Generator gen(options.seed);
  std::vector<Tensor> inputs = check.make_inputs(gen);
  Tensor y;
  {
    NoGradGuard no_grad;
    y = check.apply(inputs);
  }
  Tensor weights = Tensor::uniform(y.shape(), gen, -1, 1);                    // R, same shape as y

  text += "a small input (random normal, seed " + std::to_string(options.seed) + "):\n";
  for (size_t k = 0; k < inputs.size(); ++k) text += rows_of("x" + std::to_string(k), inputs[k]);
  text += "\nthe output:\n" + rows_of("y", y);
  text += "\nthe scalar checked is L = Σ y ⊙ R with random R in [-1, 1], so g = ∂L/∂y = R:\n" +
          rows_of("R", weights);

  GradcheckResult r = run_gradcheck(check, options);
  text += "\n∂L/∂x: analytic (from backward) vs numeric ((L(x + h) − L(x − h)) / 2h, h = " +
          formatted("%.0e", options.step) + "):\n";
  for (size_t k = 0; k < r.inputs.size(); ++k) {
    const InputComparison& in = r.inputs[k];
    text += "  x" + std::to_string(k) + " " + in.shape.str() + "\n";
    char header[128];
    std::snprintf(header, sizeof header, "    %-12s %10s %16s %16s %12s\n", "index", "x", "analytic", "numeric",
                  "difference");
    text += header;
    const size_t shown = std::min(in.numeric.size(), shown_gradients);
    for (size_t i = 0; i < shown; ++i) {
      char line[160];
      std::snprintf(line, sizeof line, "    %-12s %10.4f %16.10f %16.10f %12.2e\n",
                    in.shape.index_of(static_cast<int64_t>(i)).c_str(),
                    static_cast<double>(inputs[k].values()[i]), in.analytic[i], in.numeric[i],
                    in.analytic[i] - in.numeric[i]);
      text += line;
    }
    if (shown < in.numeric.size()) text += "    … " + std::to_string(in.numeric.size() - shown) + " more\n";
  }
  text += "\nmax |difference| " + formatted("%.2e", r.max_abs_error) + ", max relative " +
          formatted("%.2e", r.max_rel_error) + ": " + (r.passed ? "PASS" : "FAIL (" + r.problem + ")") + "\n";
  return text;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
