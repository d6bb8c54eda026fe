// check.cpp — softmax_backward against central differences.
//
// softmax_with_your_backward() is softmax as an op of the engine whose backward function is yours: the forward
// is the library's, and record() (autograd/graph.h) links y to x with a backward that calls softmax_backward(y, ∂y)
// and adds the result into x's gradient — what every op in src/autograd/ops/ does with its own formula.
// run_gradcheck (autograd/gradcheck.h) then compares that gradient of L = Σ y ⊙ R, R fixed random weights, with
// (L(x + h·e_i) − L(x − h·e_i)) / 2h for every number x_i.
#include <vector>

#include "autograd/ops.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

Tensor softmax_with_your_backward(const Tensor& x) {
  Tensor y;                                                          // [..., d]
  {
    NoGradGuard forward_only;                                        // the library's forward, with no graph
    y = softmax(x);
  }
  record(y, "softmax with your backward", {x}, [x](TensorNode& out) {
    const Tensor y_value = Tensor::from_values(out.shape, out.value);   // [..., d]
    const Tensor g = Tensor::from_values(out.shape, out.grad);          // ∂loss/∂y, [..., d]
    const Tensor dx = softmax_backward(y_value, g);                     // yours
    if (!dx.defined() || dx.shape() != x.shape()) return;               // (the check below reports it)
    real* gx = x.grad();                                                // ∂loss/∂x: add into it
    for (int64_t i = 0; i < x.numel(); ++i) gx[i] += dx.data()[i];
  });
  return y;
}

const std::string hint =
    "∂x_j = Σ_i g_i · y_i (δ_ij − y_j): the δ_ij term keeps only i = j, the other term needs a sum over the whole "
    "row (compute it once per row). Stuck? The opening comment of src/autograd/ops/softmax.cpp derives it, and "
    "`attnlab gradcheck --op softmax --explain` walks one case number by number.";
const std::string zero_hint =
    "Your softmax_backward returns zeros (the shipped stub): fill in the TODO in "
    "exercises/softmax_backward/exercise.cpp.";

// What ∂x = y ⊙ (g − c) is for a per-row number c(y_row, g_row), and what the usual mistakes give instead.
Tensor rowwise(const Tensor& y, const Tensor& g, real (*term)(const real* y, const real* g, int64_t d),
               real (*entry)(real y, real g, real c)) {
  const int64_t rows = y.shape().rows(), d = y.shape().cols();
  Tensor out = Tensor::zeros(y.shape());                             // [..., d]
  for (int64_t r = 0; r < rows; ++r) {
    const real c = term(y.data() + r * d, g.data() + r * d, d);
    for (int64_t j = 0; j < d; ++j) out.data()[r * d + j] = entry(y.data()[r * d + j], g.data()[r * d + j], c);
  }
  return out;
}

real g_dot_y(const real* y, const real* g, int64_t d) {
  real sum = 0;
  for (int64_t i = 0; i < d; ++i) sum += g[i] * y[i];
  return sum;
}

real sum_of_g(const real* /*y*/, const real* g, int64_t d) {
  real sum = 0;
  for (int64_t i = 0; i < d; ++i) sum += g[i];
  return sum;
}

std::vector<Mistake> usual_mistakes(const Tensor& y, const Tensor& g) {
  auto right_entry = [](real yj, real gj, real c) { return yj * (gj - c); };
  return {
      {"sign", "∂x is −1 × the right one", rowwise(y, g, g_dot_y, [](real yj, real gj, real c) { return yj * (c - gj); }),
       "the sign is flipped: ∂x_j = y_j (g_j − Σ_i g_i y_i), the row's own g_j first. It comes from "
       "∂y_i/∂x_j = y_i (δ_ij − y_j): +y_j when i = j, −y_i y_j for every i."},
      {"missing_sum", "∂x is y ⊙ g: the term −y_j Σ_i g_i y_i is missing",
       rowwise(y, g, g_dot_y, [](real yj, real gj, real) { return yj * gj; }),
       "you kept the diagonal of the Jacobian (i = j) and dropped the rest: every y_i depends on every x_j through "
       "the sum in softmax's denominator, so ∂x_j = Σ_i g_i y_i (δ_ij − y_j) = y_j (g_j − Σ_i g_i y_i)."},
      {"sum_without_y", "the row's sum is Σ_i g_i, not Σ_i g_i y_i", rowwise(y, g, sum_of_g, right_entry),
       "the sum Σ_i g_i · ∂y_i/∂x_j brings y_i with each g_i: the number to subtract is Σ_i g_i y_i."},
      {"outer_y_missing", "∂x is g − Σ_i g_i y_i: the factor y_j is missing",
       rowwise(y, g, g_dot_y, [](real, real gj, real c) { return gj - c; }),
       "both terms of ∂y_i/∂x_j = y_i (δ_ij − y_j) carry a y: factor it out and ∂x_j = y_j (g_j − Σ_i g_i y_i)."},
  };
}

void check() {
  // The shape first: y [2, 3] and g [2, 3] must give ∂x [2, 3].
  Generator gen(7);
  const Tensor y = softmax(Tensor::randn({2, 3}, gen));
  const Tensor g = Tensor::randn({2, 3}, gen);
  const Tensor dx = softmax_backward(y, g);
  if (!dx.defined() || dx.shape() != y.shape()) {
    fail("softmax_backward(y, g) must return ∂x shaped like y", tensor_lines("y", y),
         "y is " + y.shape().str() + ", yours is " + (dx.defined() ? dx.shape().str() : "an empty Tensor") +
             ": start from Tensor::zeros(y.shape()).");
  }
  // A usual mistake, named: yours against what each one gives on these y and g.
  std::vector<std::string> input = tensor_lines("y", y);
  for (const std::string& line : tensor_lines("g", g)) input.push_back(line);
  diagnose(rowwise(y, g, g_dot_y, [](real yj, real gj, real c) { return yj * (gj - c); }), dx,
           usual_mistakes(y, g), input);

  struct Case {
    const char* what;
    Shape shape;
    real spread;                                                     // standard deviation of the scores
  };
  for (const Case& c : {Case{"x [3, 5]: three rows of 5", {3, 5}, 1},
                        Case{"x [2, 2, 4]: leading axes are rows too", {2, 2, 4}, 1},
                        Case{"x [2, 6] with scores of ±10: nearly one-hot rows", {2, 6}, 10}}) {
    const GradcheckCase gradcheck{
        "softmax_backward", c.what,
        [c](Generator& gen) { return std::vector<Tensor>{Tensor::randn(c.shape, gen, c.spread)}; },
        [](const std::vector<Tensor>& inputs) { return softmax_with_your_backward(inputs[0]); }};
    expect_gradients(gradcheck, {"x"}, {hint}, zero_hint);
  }
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("softmax_backward", attnlab::exercises::hint, attnlab::exercises::check);
}
