// check.cpp — relu_backward, gelu_backward and tanh_backward against central differences and the library.
//
// with_your_backward() is an activation as an op of the engine whose backward function is yours: the forward is
// the library's (src/autograd/ops/activations.cpp), and record() (autograd/graph.h) links y to x with a backward
// that calls your function on x (or, for tanh, on y) and ∂y and adds the result into x's gradient. run_gradcheck
// (autograd/gradcheck.h) then compares that gradient of L = Σ y ⊙ R with (L(x + h·e_i) − L(x − h·e_i)) / 2h.
// Before that, one direct call on x [2, 3] (two of its numbers exactly 0, ReLU's kink) is compared with what the
// usual mistakes give, to name one; and at the end with the library's own backward, which alone can judge x = 0.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/ops/add_to_grad.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

// A usual mistake of one activation: the f'(x) it uses in ∂x = g · f'(x), written as a function of x.
struct Slip {
  const char* name;
  const char* what;
  real (*derivative)(real x);
  std::string fix;
};

struct Activation {
  std::string name;                                    // "relu": the library's op, and yours is name_backward
  Tensor (*forward)(const Tensor& x);                  // the library's op
  Tensor (*backward)(const Tensor& input, const Tensor& g);   // yours
  bool from_y;                                         // yours takes the output y (tanh), not x
  std::string hint;
  std::vector<Slip> slips;
};

real normal_pdf(real x) { return std::exp(-x * x / 2) / std::sqrt(2 * std::numbers::pi_v<real>); }   // φ(x)
real normal_cdf(real x) { return real(0.5) * (1 + std::erf(x / std::sqrt(real(2)))); }               // Φ(x)

const std::string gelu_fix =
    "φ(x) = Φ'(x) = ½ · (2/√π) e^(−x²/2) · (1/√2) = e^(−x²/2) / √(2π), the normal density: keep every constant of "
    "the chain rule through Φ(x) = ½ (1 + erf(x/√2)), where d/du erf(u) = (2/√π) e^(−u²).";
const std::string product_fix =
    "y = x · Φ(x) is a product of two functions of x, so ∂y/∂x = Φ(x) + x · Φ'(x) = Φ(x) + x · φ(x), both terms.";

Activation relu_activation() {
  return {"relu", relu, relu_backward, false,
          "y = max(x, 0): ∂x = g · [x > 0], 1 where x > 0 and 0 elsewhere, also at the kink x = 0 "
          "(src/autograd/ops/activations.cpp).",
          {{"relu_at_zero", "at x = 0 yours passes g: the mask is [x ≥ 0] where the library's is [x > 0]",
            [](real x) -> real { return x >= 0 ? 1 : 0; },
            "at the kink x = 0 the derivative is not defined; the library, like PyTorch, takes 0 there: "
            "∂x = g · [x > 0] (src/autograd/ops/activations.cpp). Central differences give ½ at 0 and cannot "
            "decide, so this check asks the library."},
           {"relu_no_mask", "∂x is g everywhere: the mask [x > 0] is missing", [](real) -> real { return 1; },
            "y = max(x, 0) is flat where x < 0, so those x pass no gradient: ∂x = g · [x > 0]. (A mask made from y "
            "with y ≥ 0 gives this too, y is never negative; [y > 0] is the same mask as [x > 0].)"},
           {"relu_times_y", "∂x is g · y = g · max(x, 0): the output used as the derivative",
            [](real x) -> real { return std::max(x, real(0)); },
            "that rule is eˣ's, whose derivative is itself. ReLU's derivative is a step, [x > 0]: 1 or 0 whatever "
            "the size of x, so ∂x = g · [x > 0]."}}};
}

Activation gelu_activation() {
  return {"gelu", gelu, gelu_backward, false,
          "y = x · Φ(x), Φ(x) = ½ (1 + erf(x/√2)): ∂x = g · (Φ(x) + x · φ(x)), φ(x) = e^(−x²/2) / √(2π) "
          "(src/autograd/ops/activations.cpp).",
          {{"gelu_missing_term", "∂x is g · Φ(x): the product rule's second term x · φ(x) is missing",
            [](real x) { return normal_cdf(x); }, product_fix},
           {"gelu_missing_term", "∂x is g · x · φ(x): the product rule's first term Φ(x) is missing",
            [](real x) { return x * normal_pdf(x); }, product_fix},
           {"gelu_pdf_scale", "φ(x) is missing its 1/√(2π): yours is e^(−x²/2)",
            [](real x) { return normal_cdf(x) + x * std::exp(-x * x / 2); }, gelu_fix},
           {"gelu_pdf_scale", "φ(x) is 2× too large: the ½ of Φ(x) = ½ (1 + erf(x/√2)) was dropped",
            [](real x) { return normal_cdf(x) + 2 * x * normal_pdf(x); }, gelu_fix},
           {"gelu_pdf_scale", "φ(x) is √2× too large: the inner derivative 1/√2 of erf(x/√2) was dropped",
            [](real x) { return normal_cdf(x) + std::sqrt(real(2)) * x * normal_pdf(x); }, gelu_fix},
           {"gelu_pdf_exponent", "φ(x) has e^(−x²) where it needs e^(−x²/2)",
            [](real x) { return normal_cdf(x) + x * std::exp(-x * x) / std::sqrt(2 * std::numbers::pi_v<real>); },
            "d/du erf(u) = (2/√π) e^(−u²) is taken at u = x/√2, and u² = x²/2: φ(x) = e^(−x²/2) / √(2π)."},
           {"gelu_tanh_form",
            "yours is the derivative of GELU's tanh approximation ½ x (1 + tanh(√(2/π) (x + 0.044715 x³)))",
            [](real x) {
              const real c = std::sqrt(2 / std::numbers::pi_v<real>), t = std::tanh(c * (x + real(0.044715) * x * x * x));
              return real(0.5) * (1 + t) + real(0.5) * x * (1 - t * t) * c * (1 + 3 * real(0.044715) * x * x);
            },
            "the library's GELU is the exact erf form x · Φ(x), Φ(x) = ½ (1 + erf(x/√2)) (PyTorch's nn.GELU() "
            "default, approximate='none'): ∂x = g · (Φ(x) + x · φ(x)), φ(x) = e^(−x²/2) / √(2π)."}}};
}

Activation tanh_activation() {
  return {"tanh", tanh, tanh_backward, true,
          "y = tanh(x): ∂x = g · (1 − tanh²(x)) = g · (1 − y²), from the y you are given "
          "(src/autograd/ops/activations.cpp).",
          {{"tanh_one_minus_y", "∂x is g · (1 − y): the derivative of tanh is 1 − y², not 1 − y",
            [](real x) { return 1 - std::tanh(x); },
            "d tanh(x)/dx = 1 − tanh²(x) (tanh = sinh/cosh, and cosh² − sinh² = 1), and tanh(x) is y: "
            "∂x = g · (1 − y²), y squared."},
           {"tanh_of_y", "∂x is g · (1 − tanh²(y)): tanh was applied to y, which is tanh(x) already",
            [](real x) { return 1 - std::tanh(std::tanh(x)) * std::tanh(std::tanh(x)); },
            "the argument is the forward's output y = tanh(x): ∂x = g · (1 − y²), with no tanh left to apply."}}};
}

Tensor with_your_backward(const Activation& a, const Tensor& x) {
  Tensor y;                                                          // [...], x's shape
  {
    NoGradGuard forward_only;                                        // the library's forward, with no graph
    y = a.forward(x);
  }
  record(y, "activation with your backward", {x}, [x, backward = a.backward, from_y = a.from_y](TensorNode& out) {
    const Tensor y_value = Tensor::from_values(out.shape, out.value);   // [...]
    const Tensor g = Tensor::from_values(out.shape, out.grad);          // ∂loss/∂y, [...]
    const Tensor dx = backward(from_y ? y_value : x, g);                // yours
    if (!dx.defined() || dx.shape() != x.shape()) return;               // (the check below reports it)
    const real* yours = dx.data();
    add_to_grad(x, [=](int64_t i) { return yours[i]; });                // ∂x += yours (ops/add_to_grad.h)
  });
  return y;
}

// The library's own ∂x for L = Σ y ⊙ g: what the op's backward puts into x.
Tensor library_gradient(const Activation& a, const Tensor& x, const Tensor& g) {
  Tensor x_in = x.detach();
  x_in.set_requires_grad(true);
  sum(mul(a.forward(x_in), g)).backward();
  return Tensor::from_values(x.shape(), x_in.grad_values());
}

// What each usual mistake gives: ∂x_i = g_i · f'(x_i) with its f'.
std::vector<Mistake> usual_mistakes(const Activation& a, const Tensor& x, const Tensor& g) {
  std::vector<Mistake> mistakes;
  for (const Slip& slip : a.slips) {
    Tensor gives = Tensor::zeros(x.shape());                         // [...]
    for (int64_t i = 0; i < x.numel(); ++i) gives.data()[i] = g.data()[i] * slip.derivative(x.data()[i]);
    mistakes.push_back({slip.name, slip.what, gives, slip.fix});
  }
  return mistakes;
}

void check_activation(const Activation& a, const Tensor& x, const Tensor& g) {
  const std::string yours_name = a.name + "_backward";
  Tensor y;                                                          // [2, 3]
  {
    NoGradGuard forward_only;
    y = a.forward(x);
  }
  const Tensor right = library_gradient(a, x, g), yours = a.backward(a.from_y ? y : x, g);
  std::vector<std::string> input = tensor_lines("x", x);
  for (const std::string& line : tensor_lines(a.from_y ? "y" : "g", a.from_y ? y : g)) input.push_back(line);
  if (a.from_y) {
    for (const std::string& line : tensor_lines("g", g)) input.push_back(line);
  }
  diagnose(right, yours, usual_mistakes(a, x, g), input);
  if (!yours.defined() || yours.shape() != x.shape()) {
    fail(yours_name + " must return ∂x shaped like its input", input,
         "the input is " + x.shape().str() + ", yours is " +
             (yours.defined() ? yours.shape().str() : "an empty Tensor") + ": start from Tensor::zeros(x.shape()).");
  }

  const std::string zero_hint = "Your " + yours_name + " returns zeros (the shipped stub): fill in its TODO in "
                                "exercises/activation_backward/exercise.cpp.";
  for (const auto& [what, shape] : {std::pair{"x [3, 5] with spread 2", Shape{3, 5}},
                                    std::pair{"x [2, 2, 4]: any shape, number by number", Shape{2, 2, 4}}}) {
    const GradcheckCase gradcheck{
        yours_name, std::string(a.name) + ", " + what,
        [shape](Generator& gen) { return std::vector<Tensor>{Tensor::randn(shape, gen, 2)}; },
        [a](const std::vector<Tensor>& inputs) { return with_your_backward(a, inputs[0]); }};
    expect_gradients(gradcheck, {"x"}, {a.hint}, zero_hint);
  }
  // Central differences agree now; the library's backward judges x = 0 too, where they cannot.
  expect_same(yours_name + "'s ∂x (x [2, 3], with x = 0 twice)", right, yours, {1e-9, 1e-9}, input, a.hint);
}

const std::string hint = "Each derivative is written out in the table that opens src/autograd/ops/activations.cpp.";

void check() {
  // x [2, 3], not square, two numbers exactly 0 (ReLU's kink); g [2, 3].
  const Tensor x = Tensor::from_values({2, 3}, {-1.5, 0, 0.7, 2.5, -0.3, 0});
  const Tensor g = Tensor::from_values({2, 3}, {0.8, -1.2, 0.5, 1.5, -0.7, 2});
  check_activation(relu_activation(), x, g);
  check_activation(gelu_activation(), x, g);
  check_activation(tanh_activation(), x, g);
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("activation_backward", attnlab::exercises::hint, attnlab::exercises::check);
}
