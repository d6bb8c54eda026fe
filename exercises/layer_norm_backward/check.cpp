// check.cpp — layer_norm_backward against central differences.
//
// layer_norm_with_your_backward() is layer_norm as an op of the engine whose backward function is yours: the
// forward is the library's (src/autograd/ops/layer_norm.cpp), and record() (autograd/graph.h) links y to x, γ and
// β with a backward that calls layer_norm_backward(x, γ, ∂y, ε) and adds your three gradients into theirs.
// run_gradcheck (autograd/gradcheck.h) then compares them with central differences, number by number.
#include <string>
#include <tuple>
#include <vector>

#include "autograd/ops.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

// Adds `gradient` into t's gradient when it has t's shape (a wrong shape is reported before the gradient check).
void add_gradient(const Tensor& t, const Tensor& gradient) {
  if (!gradient.defined() || gradient.shape() != t.shape()) return;
  real* g = t.grad();
  for (int64_t i = 0; i < t.numel(); ++i) g[i] += gradient.data()[i];
}

Tensor layer_norm_with_your_backward(const Tensor& x, const Tensor& gamma, const Tensor& beta, real eps) {
  Tensor y;                                                          // [..., d]
  {
    NoGradGuard forward_only;                                        // the library's forward, with no graph
    y = layer_norm(x, gamma, beta, eps);
  }
  record(y, "layer_norm with your backward", {x, gamma, beta}, [x, gamma, beta, eps](TensorNode& out) {
    const Tensor g = Tensor::from_values(out.shape, out.grad);       // ∂loss/∂y, [..., d]
    const LayerNormGradients yours = layer_norm_backward(x, gamma, g, eps);
    add_gradient(x, yours.dx);
    add_gradient(gamma, yours.dgamma);
    add_gradient(beta, yours.dbeta);
  });
  return y;
}

const std::string hint =
    "Derive one gradient at a time; the opening comment of src/autograd/ops/layer_norm.cpp has the whole "
    "derivation, and `attnlab gradcheck --op layer_norm --explain` walks one case number by number.";
const std::string zero_hint =
    "Your layer_norm_backward returns zeros here (the shipped stub): fill in the TODO in "
    "exercises/layer_norm_backward/exercise.cpp.";
const std::vector<std::string> gradient_hints{
    "∂x_j = Σ_i ĝ_i · ∂x̂_i/∂x_j with ĝ = g ⊙ γ: x_j moves x̂_i directly (rstd · δ_ij), through μ (−rstd/d) and "
    "through rstd (−rstd · x̂_i x̂_j / d). Do not assume Σ x̂² = d: with ε > 0 it is not (one case uses ε = 0.5). "
    "The derivation, line by line, opens src/autograd/ops/layer_norm.cpp.",
    "γ_i multiplies x̂_i in every row: ∂γ_i sums g_i · x̂_i over the rows (src/autograd/ops/layer_norm.cpp).",
    "β_i is added to y_i in every row: ∂β_i sums g_i over the rows (src/autograd/ops/layer_norm.cpp)."};

void check() {
  // The shapes first: x [2, 3], γ [3] must give ∂x [2, 3], ∂γ [3], ∂β [3].
  Generator gen(7);
  const Tensor x = Tensor::randn({2, 3}, gen), gamma = Tensor::randn({3}, gen), g = Tensor::randn({2, 3}, gen);
  const LayerNormGradients shaped = layer_norm_backward(x, gamma, g, real(1e-5));
  for (auto [name, gradient, like] : {std::tuple{"dx", shaped.dx, x}, std::tuple{"dgamma", shaped.dgamma, gamma},
                                      std::tuple{"dbeta", shaped.dbeta, gamma}}) {
    if (!gradient.defined() || gradient.shape() != like.shape()) {
      fail(std::string(name) + " has the wrong shape", {"x [2, 3], γ [3]"},
           std::string(name) + " must have shape " + like.shape().str() + ", yours is " +
               (gradient.defined() ? gradient.shape().str() : "an empty Tensor") +
               ": start from Tensor::zeros(x.shape()) for dx and Tensor::zeros(gamma.shape()) for dgamma and dbeta.");
    }
  }

  struct Case {
    const char* what;
    Shape shape;
    real eps;
  };
  for (const Case& c : {Case{"x [4, 6], ε = 1e-5", {4, 6}, real(1e-5)},
                        Case{"x [2, 3, 5]: leading axes are rows too", {2, 3, 5}, real(1e-5)},
                        Case{"x [3, 4], ε = 0.5: a large ε", {3, 4}, real(0.5)}}) {
    const Shape feature_shape{c.shape[-1]};
    const GradcheckCase gradcheck{
        "layer_norm_backward", c.what,
        [c, feature_shape](Generator& gen) {
          return std::vector<Tensor>{Tensor::randn(c.shape, gen, 2),                    // x, not already normalized
                                     Tensor::uniform(feature_shape, gen, real(0.5), real(1.5)),  // γ
                                     Tensor::randn(feature_shape, gen, real(0.1))};     // β
        },
        [c](const std::vector<Tensor>& inputs) {
          return layer_norm_with_your_backward(inputs[0], inputs[1], inputs[2], c.eps);
        }};
    expect_gradients(gradcheck, {"x", "γ", "β"}, gradient_hints, zero_hint, {2, 1, 0});   // ∂β, ∂γ, then ∂x
  }
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("layer_norm_backward", attnlab::exercises::hint, attnlab::exercises::check);
}
