// check.cpp — the verdict of an exercise's check, and differences written out (check.h).
#include "check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <limits>

#include "util/error.h"

namespace attnlab::exercises {

namespace {

// What fail() throws and run_check() prints: the first difference ends the check.
struct Failure {
  std::string what;
  std::vector<std::string> details;
  std::string hint;
  std::string diagnosis;
};

}  // namespace

void fail(const std::string& what, const std::vector<std::string>& details, const std::string& hint,
          const std::string& diagnosis) {
  throw Failure{what, details, hint, diagnosis};
}

int run_check(const std::string& exercise, const std::string& hint, const std::function<void()>& check) {
  Failure failure;
  try {
    check();
    std::cout << "PASS " << exercise << "\n";
    return 0;
  } catch (const Failure& f) {
    failure = f;
  } catch (const Error& e) {
    failure = {"your code threw attnlab::Error", {e.what()}, hint, ""};
  } catch (const std::exception& e) {
    failure = {"your code threw an exception", {e.what()}, hint, ""};
  }
  std::cout << "FAIL " << exercise << ": " << failure.what << "\n";
  if (!failure.diagnosis.empty()) std::cout << "  diagnosis: " << failure.diagnosis << "\n";
  for (const std::string& line : failure.details) std::cout << "  " << line << "\n";
  std::cout << "  hint: " << failure.hint << "\n";
  return 1;
}

std::string number(double value) {
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  if (std::isnan(value)) return "nan";                      // printf would say "-nan" for some NaNs
  if (value == 0) return "0";                               // and "-0" for −0 (0 × a negative number)
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string numbers(const real* values, int64_t count, int64_t most) {
  std::string text = "[";
  for (int64_t i = 0; i < count && i < most; ++i) text += (i ? ", " : "") + number(values[i]);
  if (count > most) text += ", …";
  return text + "]";
}

std::string numbers(const std::vector<real>& values, int64_t most) {
  return numbers(values.data(), static_cast<int64_t>(values.size()), most);
}

std::vector<std::string> tensor_lines(const std::string& name, const Tensor& t) {
  if (!t.defined()) return {name + " (an empty Tensor handle)"};
  const int64_t rows = t.shape().rows(), d = t.shape().cols();
  std::vector<std::string> lines;
  for (int64_t r = 0; r < rows; ++r) {
    const std::string head = r == 0 ? name + " " + t.shape().str() + " = "
                                    : std::string(name.size() + 1, ' ') + "row " + std::to_string(r) + ": ";
    lines.push_back(head + numbers(t.data() + r * d, d, 12));
  }
  return lines;
}

bool close(double expected, double yours, Tolerance tolerance) {
  if (expected == yours) return true;  // also −∞ against −∞
  if (!std::isfinite(expected) || !std::isfinite(yours)) return false;
  return std::abs(expected - yours) <= tolerance.atol + tolerance.rtol * std::abs(expected);
}

void expect_same(const std::string& what, const Tensor& expected, const Tensor& yours, Tolerance tolerance,
                 const std::vector<std::string>& input, const std::string& hint) {
  if (!yours.defined()) {
    fail(what + ": yours is an empty Tensor handle (Tensor() has no numbers)", input,
         "return a tensor of shape " + expected.shape().str() + ". " + hint);
  }
  if (yours.shape() != expected.shape()) {
    std::vector<std::string> details = input;
    details.push_back("expected shape " + expected.shape().str() + ", yours " + yours.shape().str());
    fail(what + " has the wrong shape", details, hint);
  }
  for (int64_t i = 0; i < expected.numel(); ++i) {
    if (close(expected.data()[i], yours.data()[i], tolerance)) continue;
    const int64_t d = expected.shape().cols(), row = i / d;
    std::vector<std::string> details = input;
    details.push_back("at " + expected.shape().index_of(i) + ": expected " + number(expected.data()[i]) + ", yours " +
                      number(yours.data()[i]));
    details.push_back("that row, expected: " + numbers(expected.data() + row * d, d, 12));
    details.push_back("that row, yours:    " + numbers(yours.data() + row * d, d, 12));
    fail(what + " differs", details, hint);
  }
}

void expect_gradients(const GradcheckCase& check, const std::vector<std::string>& names,
                      const std::vector<std::string>& hints, const std::string& zero_hint,
                      std::vector<size_t> report_order) {
  const GradcheckOptions options;
  const GradcheckResult result = run_gradcheck(check, options);
  if (result.passed) return;

  // run_gradcheck's own rule, number by number: |analytic − numeric| ≤ atol + rtol · max(|analytic|, |numeric|).
  auto off_by = [&](double analytic, double numeric) {
    if (!std::isfinite(analytic) || !std::isfinite(numeric)) return std::numeric_limits<double>::infinity();
    return std::abs(analytic - numeric) -
           (options.atol + options.rtol * std::max(std::abs(analytic), std::abs(numeric)));
  };
  std::string summary;
  std::vector<bool> right(result.inputs.size(), true);
  for (size_t k = 0; k < result.inputs.size(); ++k) {
    const InputComparison& input = result.inputs[k];
    for (size_t i = 0; i < input.numeric.size(); ++i) {
      if (off_by(input.analytic[i], input.numeric[i]) > 0) right[k] = false;
    }
    summary += (k ? "   " : "") + std::string("∂") + names[k] + (right[k] ? " ✓" : " ✗");
  }
  if (report_order.empty()) {
    for (size_t k = 0; k < result.inputs.size(); ++k) report_order.push_back(k);
  }
  size_t first_wrong = result.inputs.size();
  for (size_t k : report_order) {
    if (!right[k]) {
      first_wrong = k;
      break;
    }
  }

  Generator gen(options.seed);  // the inputs run_gradcheck made, made again
  const std::vector<Tensor> inputs = check.make_inputs(gen);
  std::vector<std::string> details{"gradients: " + summary,
                                   "(the loss is L = Σ y ⊙ R with fixed random weights R, so g = ∂L/∂y = R)"};
  for (size_t k = 0; k < inputs.size(); ++k) {
    for (const std::string& line : tensor_lines(names[k], inputs[k])) details.push_back(line);
  }
  if (first_wrong == result.inputs.size()) {  // nothing out of tolerance: say what was
    details.push_back(result.problem);
    fail("the gradients do not match central differences (" + check.what + ")", details, zero_hint);
  }

  const InputComparison& input = result.inputs[first_wrong];
  size_t worst = 0;
  for (size_t i = 0; i < input.numeric.size(); ++i) {
    if (off_by(input.analytic[i], input.numeric[i]) > off_by(input.analytic[worst], input.numeric[worst])) worst = i;
  }
  const std::string name = "∂" + names[first_wrong];
  const int64_t d = input.shape.cols(), row = static_cast<int64_t>(worst) / d;
  std::vector<real> numeric_row, yours_row;
  for (int64_t j = 0; j < d; ++j) {
    numeric_row.push_back(static_cast<real>(input.numeric[static_cast<size_t>(row * d + j)]));
    yours_row.push_back(static_cast<real>(input.analytic[static_cast<size_t>(row * d + j)]));
  }
  details.push_back("at " + name + input.shape.index_of(static_cast<int64_t>(worst)) + ": central difference " +
                    number(input.numeric[worst]) + ", yours " + number(input.analytic[worst]));
  details.push_back("that row of " + name + ", central differences: " + numbers(numeric_row, 12));
  details.push_back("that row of " + name + ", yours:               " + numbers(yours_row, 12));
  bool zeros = true;
  for (double a : input.analytic) zeros = zeros && a == 0;
  const std::string& hint = hints[first_wrong];
  fail(name + " does not match central differences (" + check.what + ")", details,
       zeros ? zero_hint + " " + hint : hint);
}

namespace {

bool same(const Tensor& a, const Tensor& b, Tolerance tolerance) {
  if (!a.defined() || !b.defined() || a.shape() != b.shape()) return false;
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (!close(a.data()[i], b.data()[i], tolerance)) return false;
  }
  return true;
}

}  // namespace

void diagnose(const Tensor& right, const Tensor& yours, const std::vector<Mistake>& mistakes,
              const std::vector<std::string>& input, Tolerance tolerance) {
  if (same(right, yours, tolerance)) return;
  for (const Mistake& mistake : mistakes) {
    if (!same(mistake.gives, yours, tolerance)) continue;
    std::vector<std::string> details = input;
    for (const std::string& line : tensor_lines("yours", yours)) details.push_back(line);
    for (const std::string& line : tensor_lines("right", right)) details.push_back(line);
    fail(mistake.what, details, mistake.fix, mistake.name);
  }
}

Tensor as_tensor(const std::vector<double>& values) {
  return Tensor::from_values({static_cast<int64_t>(values.size())}, std::vector<real>(values.begin(), values.end()));
}

bool all_zero(const Tensor& t) {
  if (!t.defined()) return false;
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (t.data()[i] != 0) return false;
  }
  return true;
}

}  // namespace attnlab::exercises
