// check.h — what every exercise's check shares: the verdict, and differences said so that a person can act on them.
//
// A check (exercises/<name>/check.cpp) runs the learner's function on small inputs and compares it with the
// library — the real op, the real optimizer — or, for a backward function, with central differences. The first
// difference ends the check with one block on standard output and exit status 1:
//
//     FAIL softmax_backward: ∂x does not match central differences (x [3, 5]: three rows of 5)
//       x[1, 2]  expected 0.0831  yours 0
//       …the input, and the numbers around the one that differs…
//       hint: ∂x_i = y_i · (g_i − Σ_j g_j · y_j); the derivation opens src/autograd/ops/softmax.cpp
//
// When the learner's result is what a usual mistake of the idea gives (the sign, the wrong scale, a missing term,
// transposed axes), the block names it on its second line — "  diagnosis: sign" — and its hint says how to fix
// that mistake. Each diagnosis is proven by the suite: exercises/<name>/mistakes.txt plants it in a copy of the
// answer, and the test expects the check to name it.
//
// When nothing differs: the one line "PASS <name>" and exit status 0.
// The checks are compiled against the float64 library (attnlab64), so `real` is double here and the
// comparisons can be tight: a wrong formula misses them by orders of magnitude, rounding never does.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "autograd/gradcheck.h"
#include "tensor/tensor.h"

namespace attnlab::exercises {

// Ends a check with "FAIL <name>: what", the lines of `details` (indented), and "hint: …"; with a `diagnosis`
// (the name of a usual mistake), the line "diagnosis: <diagnosis>" comes first among the details.
[[noreturn]] void fail(const std::string& what, const std::vector<std::string>& details, const std::string& hint,
                       const std::string& diagnosis = "");

// Runs `check` and prints the verdict; returns main()'s exit status (0: PASS, 1: FAIL). An exception from the
// learner's code (an attnlab::Error for shapes that do not fit, say) is a failure too: its message is shown
// with `hint`, the exercise's general hint.
int run_check(const std::string& exercise, const std::string& hint, const std::function<void()>& check);

// Numbers for people: "0.0831", "-1.5e-07", "-inf", "nan", "0" for −0 too (six significant digits).
std::string number(double value);
// "[0.1, -0.5, 2, …]": the first `most` of `count` numbers.
std::string numbers(const real* values, int64_t count, int64_t most = 8);
std::string numbers(const std::vector<real>& values, int64_t most = 8);
// A small tensor in full, a line a row: "x [2, 3] = [0.1, -0.5, 2]", then "  row 1: [1, 0, 3]".
std::vector<std::string> tensor_lines(const std::string& name, const Tensor& t);

// How close is equal: |expected − yours| ≤ atol + rtol · |expected|. Equal infinities agree; NaN never does.
struct Tolerance {
  double atol = 1e-9;
  double rtol = 1e-9;
};
bool close(double expected, double yours, Tolerance tolerance);

// Fails unless `yours` is defined, has `expected`'s shape and, number by number, its values. The message names
// `what` ("the attention output"), the first index that differs with both numbers, the row (last axis) around it
// from both tensors, and the lines of `input` (the inputs of this case, from tensor_lines()).
void expect_same(const std::string& what, const Tensor& expected, const Tensor& yours, Tolerance tolerance,
                 const std::vector<std::string>& input, const std::string& hint);

// Fails unless the gradients of the op in `check` (whose backward is the learner's) match central differences,
// input by input (run_gradcheck, autograd/gradcheck.h, with its default tolerance). names[k] names input k ("x",
// "γ"), hints[k] says what to read about its gradient. The message marks each input's gradient ✓ or ✗, shows the
// inputs, and for the first ✗ in report_order (the inputs' order when empty; put the easiest gradient first) the
// number that differs most and its row; when that gradient is all zeros (the shipped stub) the hint starts with
// `zero_hint`.
void expect_gradients(const GradcheckCase& check, const std::vector<std::string>& names,
                      const std::vector<std::string>& hints, const std::string& zero_hint,
                      std::vector<size_t> report_order = {});

// A usual mistake, known by what it computes: the check works out what the mistake `gives` on the case at hand
// (a tensor, or numbers as a Tensor [n]). `name` is the diagnosis line's word ("sign", "scale_sqrt_dk"), `what`
// says what yours did ("yours is −1 × the right ∂x"), `fix` is the hint.
struct Mistake {
  std::string name;
  std::string what;
  Tensor gives;
  std::string fix;
};

// When `yours` is not `right` (within `tolerance`) but is what one of `mistakes` gives, fails naming it:
// "FAIL <exercise>: <what>", "diagnosis: <name>", the lines of `input`, yours and the right numbers, and the fix.
// Otherwise returns, and the check goes on to say in general what differs.
void diagnose(const Tensor& right, const Tensor& yours, const std::vector<Mistake>& mistakes,
              const std::vector<std::string>& input, Tolerance tolerance = {1e-7, 1e-7});

// Numbers as a Tensor [n], for diagnose() on results that are not tensors (counts, a learning rate, scores).
Tensor as_tensor(const std::vector<double>& values);

// True when every number of t is 0: the shipped stub's answer, which gets its own hint ("fill in the TODO").
bool all_zero(const Tensor& t);

}  // namespace attnlab::exercises
