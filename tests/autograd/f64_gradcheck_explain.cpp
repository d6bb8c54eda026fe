// f64_gradcheck_explain.cpp — `attnlab gradcheck --op NAME --explain` has something to explain for every op: each
// registered op carries its forward formula and its derivative, and the tour of a case shows the input, the
// output and the analytic and numeric gradients side by side, with the numbers the check itself compares.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "autograd/gradcheck.h"
#include "gpt/checks.h"
#include "util/error.h"

using namespace attnlab;

TEST_CASE("every op's gradient checks carry a formula and a derivative to explain") {
  std::map<std::string, int> cases_of;
  for (const GradcheckCase& c : all_gradcheck_cases()) {
    INFO("op ", c.op, " (", c.what, ")");
    CHECK(!c.formula.empty());
    CHECK(!c.derivative.empty());
    ++cases_of[c.op];
  }
  CHECK(cases_of.size() > 40);   // the op set, the layers, the model and the attention kinds
}

TEST_CASE("the tour of softmax shows the formula, the input, the output and both gradient columns") {
  GradcheckCase softmax_case;
  for (const GradcheckCase& c : all_gradcheck_cases()) {
    if (c.op == "softmax") {
      softmax_case = c;
      break;
    }
  }
  REQUIRE(softmax_case.op == "softmax");
  const std::string text = explain_gradcheck(softmax_case);
  CHECK(text.find(softmax_case.formula) != std::string::npos);
  CHECK(text.find(softmax_case.derivative) != std::string::npos);
  CHECK(text.find("x0 [2, 3, 5]") != std::string::npos);                 // the input, with its shape
  CHECK(text.find("y [2, 3, 5]") != std::string::npos);                  // the output
  CHECK(text.find("analytic") != std::string::npos);
  CHECK(text.find("numeric") != std::string::npos);
  CHECK(text.find("difference") != std::string::npos);
  CHECK(text.find("PASS") != std::string::npos);
  // The gradient lines are those run_gradcheck compares: its first analytic number appears in the table.
  GradcheckResult r = run_gradcheck(softmax_case);
  char first[32];
  std::snprintf(first, sizeof first, "%16.10f", r.inputs[0].analytic[0]);
  CHECK(text.find(first) != std::string::npos);
}

TEST_CASE("explain_op refuses an op name that has no gradient check") {
  std::vector<GradcheckCase> cases = all_gradcheck_cases();
  CHECK_THROWS_AS(explain_op(cases, "sofmax", "y = …", "∂x = …"), Error);
}
