// gradcheck.h — checking every backward function against finite differences.
//
// A backward function is hand-written calculus, and hand-written calculus has bugs. The check: for an op f and
// random inputs x, build the scalar L(x) = Σ f(x) ⊙ R with fixed random weights R (a plain sum would hide bugs:
// Σ softmax(x) is 1 whatever x is, so its gradient is 0), and compare, for every input number x_i,
//
//     analytic:  ∂L/∂x_i from L.backward()
//     numeric:   (L(x + h·e_i) - L(x - h·e_i)) / 2h          (central difference, error O(h²))
//
// They must agree to |analytic - numeric| ≤ atol + rtol · max(|analytic|, |numeric|). In float64 with
// h = 1e-6 the two agree to about 1e-9, so the default tolerance (1e-6 absolute, 1e-5 relative) is tight: a
// wrong backward misses it by orders of magnitude. Build this in float64 (the attnlab64 library).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct GradcheckCase {
  GradcheckCase() = default;
  // A case is written {op, what, make_inputs, apply}; formula and derivative are filled in by explain_op().
  GradcheckCase(std::string op_name, std::string situation,
                std::function<std::vector<Tensor>(Generator& gen)> inputs,
                std::function<Tensor(const std::vector<Tensor>& inputs)> function)
      : op(std::move(op_name)), what(std::move(situation)), make_inputs(std::move(inputs)),
        apply(std::move(function)) {}

  std::string op;    // the op's name, as `attnlab gradcheck --op NAME` takes it
  std::string what;  // which situation this case covers, e.g. "row broadcast", "fully masked row"
  // Makes the inputs to differentiate (the checker sets requires_grad on each).
  std::function<std::vector<Tensor>(Generator& gen)> make_inputs;
  // Applies the op. Must be deterministic: an op that draws random numbers (dropout) seeds its own Generator here.
  std::function<Tensor(const std::vector<Tensor>& inputs)> apply;
  // What `attnlab gradcheck --op NAME --explain` shows: the op's forward formula and its derivative, written
  // out as in the op's source comments (g = ∂L/∂y). Set once per op by explain_op() at the end of each list.
  std::string formula;
  std::string derivative;
};

struct GradcheckOptions {
  double step = 1e-6;   // h
  double atol = 1e-6;
  double rtol = 1e-5;
  uint64_t seed = 20261121;
};

struct InputComparison {
  Shape shape;
  std::vector<double> analytic;  // one per input number
  std::vector<double> numeric;
};

struct GradcheckResult {
  std::string op, what;
  std::string shapes;           // "[2, 3] [3]" — the inputs' shapes
  double max_abs_error = 0;
  double max_rel_error = 0;     // |a - n| / max(|a|, |n|), largest over the numbers with max(|a|, |n|) ≥ atol
  bool passed = false;
  std::string problem;          // empty, or why it failed (e.g. "input 0 received no gradient")
  std::vector<InputComparison> inputs;
};

GradcheckResult run_gradcheck(const GradcheckCase& check, const GradcheckOptions& options = {});

// Gives every case of `op` in `cases` its formula and derivative. Throws attnlab::Error when no case is called
// `op`, so a misspelt name cannot leave an op without its text.
void explain_op(std::vector<GradcheckCase>& cases, const std::string& op, const std::string& formula,
                const std::string& derivative);

// A guided tour of one case, as text (gradcheck_explain.cpp): the formula and the derivative, the inputs, the
// output y, the weights R of L = Σ y ⊙ R (so ∂L/∂y = R), and for every input number its value, the analytic and
// the numeric gradient and their difference. The numbers are those run_gradcheck(check, options) compares.
std::string explain_gradcheck(const GradcheckCase& check, const GradcheckOptions& options = {});

// One list per op file of chapter 2 (src/autograd/checks/<file>.cpp). The kernels, layers, attention kinds and
// the model have their own lists next to them (kernels/checks.h, nn/checks.h, attention/checks.h, model/checks.h),
// and model/checks.h has the list of all of them.
std::vector<GradcheckCase> elementwise_checks();
std::vector<GradcheckCase> matmul_checks();
std::vector<GradcheckCase> shape_checks();
std::vector<GradcheckCase> activation_checks();
std::vector<GradcheckCase> softmax_checks();
std::vector<GradcheckCase> layer_norm_checks();
// The same cases for another function with layer_norm's signature (the kernel fused_layer_norm), named `op`.
using LayerNormFunction = Tensor (*)(const Tensor& x, const Tensor& gamma, const Tensor& beta, real eps);
std::vector<GradcheckCase> layer_norm_checks_for(const std::string& op, LayerNormFunction normalize);
std::vector<GradcheckCase> dropout_checks();
std::vector<GradcheckCase> embedding_checks();
std::vector<GradcheckCase> reduction_checks();
std::vector<GradcheckCase> cross_entropy_checks();
std::vector<GradcheckCase> attention_op_checks();    // prefix_softmax, divide
std::vector<GradcheckCase> pointer_sum_checks();

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
