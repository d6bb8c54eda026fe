// check.cpp — layer_norm_backward against central differences, and its usual mistakes by name.
//
// First, one small case, x [2, 3] (two rows of three features: not square, so a sum down the rows and a sum along
// a row give tensors of different shapes): your three gradients against the library's (the backward of
// src/autograd/ops/layer_norm.cpp, through backward()), and against what each usual mistake gives — ∂β or ∂γ not
// summed over the rows or summed along them, x for x̂, the unbiased variance, γ forgotten in ∂x, the mean terms of
// ∂x missing. A match names the mistake.
//
// Then the gradient check: layer_norm_with_your_backward() is layer_norm as an op of the engine whose backward
// function is yours: the forward is the library's, and record() (autograd/graph.h) links y to x, γ and β with a
// backward that calls layer_norm_backward(x, γ, ∂y, ε) and adds your three gradients into theirs.
// run_gradcheck (autograd/gradcheck.h) then compares them with central differences, number by number.
#include <cmath>
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

// ---- What the right formulas and the usual mistakes give, written out plainly for one small case ----

// x̂ = (x − μ) · rstd of every row [rows, d], and rstd a row, with σ² = Σ (x_j − μ)² / (d − less): less = 0 is
// right, less = 1 the unbiased variance.
struct Normalized {
  Tensor x_hat;
  std::vector<real> rstd;
};

Normalized normalize(const Tensor& x, real eps, int64_t less) {
  const int64_t rows = x.shape().rows(), d = x.shape().cols();
  Normalized n{Tensor::zeros(x.shape()), {}};
  for (int64_t r = 0; r < rows; ++r) {
    const real* xr = x.data() + r * d;
    real mu = 0, variance = 0;
    for (int64_t j = 0; j < d; ++j) mu += xr[j] / static_cast<real>(d);
    for (int64_t j = 0; j < d; ++j) variance += (xr[j] - mu) * (xr[j] - mu) / static_cast<real>(d - less);
    n.rstd.push_back(1 / std::sqrt(variance + eps));
    for (int64_t j = 0; j < d; ++j) n.x_hat.data()[r * d + j] = (xr[j] - mu) * n.rstd.back();
  }
  return n;
}

// Σ over the rows of a [rows, d] tensor → [d]; with last_only, its last row instead (= where += belongs).
Tensor down_the_rows(const Tensor& t, bool last_only = false) {
  const int64_t rows = t.shape().rows(), d = t.shape().cols();
  Tensor out = Tensor::zeros({d});                                   // [d]
  for (int64_t r = last_only ? rows - 1 : 0; r < rows; ++r)
    for (int64_t j = 0; j < d; ++j) out.data()[j] += t.data()[r * d + j];
  return out;
}

// Σ along each row of a [rows, d] tensor, one number a row, written into a tensor of `shape` (zeros after).
Tensor along_each_row(const Tensor& t, const Shape& shape) {
  const int64_t rows = t.shape().rows(), d = t.shape().cols();
  Tensor out = Tensor::zeros(shape);
  for (int64_t r = 0; r < rows && r < out.numel(); ++r)
    for (int64_t j = 0; j < d; ++j) out.data()[r] += t.data()[r * d + j];
  return out;
}

// ∂x = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂)), row by row, keeping only the terms asked for.
Tensor dx_of(const Normalized& n, const Tensor& g_hat, bool mean_term, bool rstd_term) {
  const int64_t rows = g_hat.shape().rows(), d = g_hat.shape().cols();
  Tensor dx = Tensor::zeros(g_hat.shape());                          // [rows, d]
  for (int64_t r = 0; r < rows; ++r) {
    const real* gh = g_hat.data() + r * d;
    const real* xh = n.x_hat.data() + r * d;
    real mean_g_hat = 0, mean_g_hat_x_hat = 0;
    for (int64_t j = 0; j < d; ++j) {
      mean_g_hat += gh[j] / static_cast<real>(d);
      mean_g_hat_x_hat += gh[j] * xh[j] / static_cast<real>(d);
    }
    for (int64_t j = 0; j < d; ++j) {
      dx.data()[r * d + j] = n.rstd[static_cast<size_t>(r)] * (gh[j] - (mean_term ? mean_g_hat : 0) -
                                                                (rstd_term ? xh[j] * mean_g_hat_x_hat : 0));
    }
  }
  return dx;
}

struct SmallCase {
  Tensor x, gamma, g;                                                // [2, 3], [3], [2, 3]
  real eps;
  std::vector<std::string> input;                                    // their lines, for the messages
};

std::vector<Mistake> dbeta_mistakes(const SmallCase& c) {
  return {{"dbeta_not_summed", "your ∂β is the last row's g only: it is not summed over the rows",
           down_the_rows(c.g, true),
           "β_i is added in every row, so ∂β_i = Σ_rows g_i: add each row's g into ∂β (+=), do not overwrite it (=)."},
          {"dbeta_wrong_axis", "your ∂β sums g along each row (one number a row) instead of down the rows",
           along_each_row(c.g, c.gamma.shape()),
           "∂β has one number per feature i: ∂β_i = Σ over the rows r of g[r, i]. Summing along a row mixes the "
           "features."}};
}

std::vector<Mistake> dgamma_mistakes(const SmallCase& c) {
  const Normalized right = normalize(c.x, c.eps, 0), unbiased = normalize(c.x, c.eps, 1);
  return {{"dgamma_wrong_axis", "your ∂γ sums g ⊙ x̂ along each row (one number a row) instead of down the rows",
           along_each_row(mul(c.g, right.x_hat), c.gamma.shape()),
           "∂γ has one number per feature i: ∂γ_i = Σ over the rows r of g[r, i] · x̂[r, i] (index ∂γ by the "
           "feature j, not by the row r)."},
          {"dgamma_uses_x", "your ∂γ is Σ_rows g ⊙ x: x where x̂ belongs", down_the_rows(mul(c.g, c.x)),
           "γ multiplies the normalized x̂ = (x − μ) · rstd, not x: ∂γ_i = Σ_rows g_i · x̂_i."},
          {"unbiased_variance", "your ∂γ is right for σ² = Σ (x_j − μ)² / (d − 1), the unbiased variance",
           down_the_rows(mul(c.g, unbiased.x_hat)),
           "layer norm divides by d (the biased variance, as PyTorch's LayerNorm): σ² = (1/d) Σ (x_j − μ)²."}};
}

std::vector<Mistake> dx_mistakes(const SmallCase& c) {
  const Normalized right = normalize(c.x, c.eps, 0), unbiased = normalize(c.x, c.eps, 1);
  const Tensor g_hat = mul(c.g, c.gamma);                            // ĝ = g ⊙ γ, [2, 3]
  return {{"dx_missing_mean_terms", "your ∂x is rstd · ĝ: both terms through μ and rstd are missing",
           dx_of(right, g_hat, false, false),
           "x_j moves every x̂_i of its row, through μ and through rstd: ∂x_j = rstd · (ĝ_j − mean(ĝ) − x̂_j · "
           "mean(ĝ ⊙ x̂)), the means over the row."},
          {"dx_rstd_constant", "your ∂x is rstd · (ĝ − mean(ĝ)): the term through rstd is missing",
           dx_of(right, g_hat, true, false),
           "rstd = 1/√(σ² + ε) depends on x too: ∂rstd/∂x_j = −rstd² · x̂_j / d, which adds −x̂_j · mean(ĝ ⊙ x̂) "
           "inside the bracket."},
          {"dx_without_gamma", "your ∂x uses g where ĝ = g ⊙ γ belongs", dx_of(right, c.g, true, true),
           "y = γ ⊙ x̂ + β, so the gradient reaching x̂ is ĝ = g ⊙ γ: use it in all three places of "
           "rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂))."},
          {"unbiased_variance", "your ∂x is right for σ² = Σ (x_j − μ)² / (d − 1), the unbiased variance",
           dx_of(unbiased, g_hat, true, true),
           "layer norm divides by d (the biased variance, as PyTorch's LayerNorm): σ² = (1/d) Σ (x_j − μ)²."}};
}

// The library's three gradients of L = Σ y ⊙ g, through its own backward.
LayerNormGradients library_gradients(const SmallCase& c) {
  const Tensor x = c.x.detach().set_requires_grad(true), gamma = c.gamma.detach().set_requires_grad(true);
  const Tensor beta = Tensor::zeros(c.gamma.shape(), true);
  sum(mul(layer_norm(x, gamma, beta, c.eps), c.g)).backward();
  return {Tensor::from_values(x.shape(), x.grad_values()), Tensor::from_values(gamma.shape(), gamma.grad_values()),
          Tensor::from_values(beta.shape(), beta.grad_values())};
}

// The small case: shapes first, then ∂β, ∂γ, ∂x in that order, each named when it is a usual mistake. The first
// gradient that is wrong and unnamed ends the naming: the gradient check below then says what differs.
void check_small_case() {
  Generator gen(7);
  SmallCase c{Tensor::randn({2, 3}, gen, 2), Tensor::uniform({3}, gen, real(0.5), real(1.5)),
              Tensor::randn({2, 3}, gen), real(1e-5), {}};
  for (const auto& [name, t] : {std::pair{"x", c.x}, std::pair{"γ", c.gamma}, std::pair{"g", c.g}})
    for (const std::string& line : tensor_lines(name, t)) c.input.push_back(line);
  const LayerNormGradients yours = layer_norm_backward(c.x, c.gamma, c.g, c.eps);
  const LayerNormGradients right = library_gradients(c);
  for (auto [name, gradient, like] : {std::tuple{"dx", yours.dx, c.x}, std::tuple{"dgamma", yours.dgamma, c.gamma},
                                      std::tuple{"dbeta", yours.dbeta, c.gamma}}) {
    if (!gradient.defined() || gradient.shape() != like.shape()) {
      fail(std::string(name) + " has the wrong shape", {"x [2, 3], γ [3]"},
           std::string(name) + " must have shape " + like.shape().str() + ", yours is " +
               (gradient.defined() ? gradient.shape().str() : "an empty Tensor") +
               ": start from Tensor::zeros(x.shape()) for dx and Tensor::zeros(gamma.shape()) for dgamma and dbeta.");
    }
  }
  for (auto [yours_one, right_one, mistakes] : {std::tuple{yours.dbeta, right.dbeta, dbeta_mistakes(c)},
                                                std::tuple{yours.dgamma, right.dgamma, dgamma_mistakes(c)},
                                                std::tuple{yours.dx, right.dx, dx_mistakes(c)}}) {
    diagnose(right_one, yours_one, mistakes, c.input);
    for (int64_t i = 0; i < right_one.numel(); ++i) {
      if (!close(right_one.data()[i], yours_one.data()[i], {1e-7, 1e-7})) return;   // wrong, unnamed
    }
  }
}

void check() {
  check_small_case();
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
