// checks/activation.cpp — gradient checks for relu, gelu, tanh, exp, log and elu_plus_one (ops/activations.cpp).
//
// relu and elu_plus_one have a kink at 0, where the derivative jumps: a central difference that straddles it
// measures the average of the two slopes, not either one. Their inputs are kept at |x| ≥ 0.1 (far beyond the
// step h = 1e-6), with both signs present, so each side of the kink is checked. log gets positive inputs.
#include <cmath>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// Numbers with |x| in [0.1, 2] and alternating signs: +, −, +, −, …
Tensor away_from_zero(const Shape& shape, Generator& gen) {
  Tensor x = Tensor::uniform(shape, gen, 0.1, 2);                       // [shape], all positive
  for (int64_t i = 1; i < x.numel(); i += 2) x.data()[i] = -x.data()[i];
  return x;
}

GradcheckCase unary(std::string op, std::string what, std::function<Tensor(Generator&)> make_input,
                    Tensor (*f)(const Tensor&)) {
  return {std::move(op), std::move(what),
          [make_input](Generator& gen) { return std::vector<Tensor>{make_input(gen)}; },
          [f](const std::vector<Tensor>& in) { return f(in[0]); }};
}

}  // namespace

std::vector<GradcheckCase> activation_checks() {
  auto normal = [](Generator& gen) { return Tensor::randn({2, 3, 4}, gen); };                    // [2, 3, 4]
  auto wide = [](Generator& gen) { return Tensor::randn({2, 3, 4}, gen, 3); };                   // [2, 3, 4]
  auto both_signs = [](Generator& gen) { return away_from_zero({2, 3, 4}, gen); };               // [2, 3, 4]
  auto positive = [](Generator& gen) { return Tensor::uniform({2, 3, 4}, gen, 0.2, 3); };        // [2, 3, 4]

  std::vector<GradcheckCase> cases;
  cases.push_back(unary("relu", "both signs, |x| >= 0.1", both_signs, relu));
  cases.push_back(unary("gelu", "normal inputs", normal, gelu));
  cases.push_back(unary("gelu", "wide inputs (std 3): both tails", wide, gelu));
  cases.push_back(unary("tanh", "normal inputs", normal, tanh));
  cases.push_back(unary("tanh", "wide inputs (std 3): saturation", wide, tanh));
  cases.push_back(unary("exp", "normal inputs", normal, exp));
  cases.push_back(unary("log", "positive inputs in [0.2, 3)", positive, log));
  cases.push_back(unary("elu_plus_one", "both signs, |x| >= 0.1", both_signs, elu_plus_one));
  explain_op(cases, "relu", "y = max(x, 0)",
             "∂x += g · [x > 0]");
  explain_op(cases, "gelu", "y = x · Φ(x),  Φ(x) = ½ (1 + erf(x / √2)) the standard normal CDF",
             "∂x += g · (Φ(x) + x · φ(x)),  φ(x) = e^(−x²/2) / √(2π)   (product rule)");
  explain_op(cases, "tanh", "y = tanh(x)",
             "∂x += g · (1 − y²)");
  explain_op(cases, "exp", "y = eˣ",
             "∂x += g · y");
  explain_op(cases, "log", "y = ln x   (x > 0)",
             "∂x += g / x");
  explain_op(cases, "elu_plus_one", "y = x + 1 if x > 0, else eˣ   (φ of linear attention: always > 0)",
             "∂x += g · (1 if x > 0, else eˣ = y)");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
