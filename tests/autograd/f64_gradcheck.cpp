// f64_gradcheck.cpp — every op's backward agrees with central finite differences (float64).
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <string>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "gpt/checks.h"

using namespace attnlab;

TEST_CASE("the tests run in float64") { CHECK(sizeof(real) == 8); }

TEST_CASE("every op's gradient matches central differences") {
  std::vector<GradcheckCase> cases = all_gradcheck_cases();
  REQUIRE(!cases.empty());
  for (const GradcheckCase& c : cases) {
    GradcheckResult r = run_gradcheck(c);
    INFO(r.op, " (", r.what, ") ", r.shapes, ": ", r.problem, " max abs error ", r.max_abs_error,
         " max rel error ", r.max_rel_error);
    CHECK(r.passed);
    // The relative error is taken only where the gradient exceeds atol (1e-6); there every check agrees to
    // about 1e-5 or better. (Over gradients that are 0 up to rounding it would read 1.00 and alarm a reader
    // of `attnlab gradcheck` for nothing; it did, before it left them to the absolute error.)
    CHECK(r.max_rel_error < 1e-4);
  }
}

// The differentiable ops, as the two tables of contents declare them: every line "Tensor name(" of
// src/autograd/ops.h (chapter 2) and src/kernels/kernels.h (the fused ops). Read from the headers, not typed
// here, so that a new op without a gradient check fails this test.
std::set<std::string> declared_ops() {
  std::set<std::string> ops;
  for (const char* header : {"/src/autograd/ops.h", "/src/kernels/kernels.h"}) {
    std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + header);
    REQUIRE_MESSAGE(in, "cannot read ", header);
    for (std::string line; std::getline(in, line);) {
      if (!line.starts_with("Tensor ")) continue;                 // declarations start the line; inline operators don't
      const size_t open = line.find('(');
      if (open != std::string::npos) ops.insert(line.substr(7, open - 7));
    }
  }
  return ops;
}

TEST_CASE("every op declared in ops.h and kernels.h has at least one gradient check") {
  std::set<std::string> checked;
  for (const GradcheckCase& c : all_gradcheck_cases()) checked.insert(c.op);
  const std::set<std::string> declared = declared_ops();
  CHECK(declared.size() >= 30);                                   // the reading found the op set …
  CHECK(declared.count("matmul") == 1);                           // … of chapter 2
  CHECK(declared.count("scaled_dot_attention") == 1);             // … and of the kernels
  for (const std::string& op : declared) {
    INFO("op without a gradient check: ", op);
    CHECK(checked.count(op) == 1);
  }
}

// An op with a deliberately wrong backward: y = x², but the backward says ∂y/∂x = x (it should be 2x).
Tensor square_with_wrong_backward(const Tensor& x) {
  Tensor y = Tensor::zeros(x.shape());
  for (int64_t i = 0; i < x.numel(); ++i) y.data()[i] = x.data()[i] * x.data()[i];
  record(y, "square_wrong", {x}, [x](TensorNode& out) {
    for (int64_t i = 0; i < x.numel(); ++i) x.grad()[i] += out.grad[i] * x.data()[i];   // missing factor 2
  });
  return y;
}

TEST_CASE("the checker catches a deliberately wrong backward") {
  GradcheckCase broken{"square_wrong", "backward off by a factor of 2",
                       [](Generator& gen) { return std::vector<Tensor>{Tensor::randn({3, 4}, gen)}; },
                       [](const std::vector<Tensor>& in) { return square_with_wrong_backward(in[0]); }};
  GradcheckResult r = run_gradcheck(broken);
  CHECK_FALSE(r.passed);
  CHECK(r.max_abs_error > 1e-2);
}

TEST_CASE("the checker catches a backward that forgets an input") {
  GradcheckCase forgetful{"mul_forgets_b", "no gradient for the second input",
                          [](Generator& gen) {
                            return std::vector<Tensor>{Tensor::randn({3}, gen), Tensor::randn({3}, gen)};
                          },
                          [](const std::vector<Tensor>& in) {
                            Tensor y = Tensor::zeros({3});
                            for (int i = 0; i < 3; ++i) y.data()[i] = in[0].data()[i] * in[1].data()[i];
                            Tensor a = in[0], b = in[1];
                            record(y, "mul_forgets_b", {a, b}, [a, b](TensorNode& out) {
                              for (int i = 0; i < 3; ++i) a.grad()[i] += out.grad[i] * b.data()[i];
                            });
                            return y;
                          }};
  GradcheckResult r = run_gradcheck(forgetful);
  CHECK_FALSE(r.passed);
  CHECK(r.problem == "input 1 received no gradient");
}
