// checks/reduction.cpp — gradient checks for sum, mean, cumsum and divide_by_sum (ops/reductions.cpp).
//
// Axes are taken first, in the middle, last and negative, with and without keepdim, because the [outer, n,
// inner] indexing of ops/reductions.cpp is where an off-by-one would hide.
#include <string>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A case with one random normal input of the given shape.
GradcheckCase unary(std::string op, std::string what, Shape shape, std::function<Tensor(const Tensor&)> f) {
  return {std::move(op), std::move(what),
          [shape](Generator& gen) { return std::vector<Tensor>{Tensor::randn(shape, gen)}; },
          [f](const std::vector<Tensor>& in) { return f(in[0]); }};
}

// divide_by_sum needs sums well away from zero: positive inputs in [0.5, 2).
GradcheckCase positive(std::string what, Shape shape, std::function<Tensor(const Tensor&)> f) {
  return {"divide_by_sum", std::move(what),
          [shape](Generator& gen) { return std::vector<Tensor>{Tensor::uniform(shape, gen, 0.5, 2)}; },
          [f](const std::vector<Tensor>& in) { return f(in[0]); }};
}

}  // namespace

std::vector<GradcheckCase> reduction_checks() {
  std::vector<GradcheckCase> cases;
  cases.push_back(unary("sum", "all numbers, to [1]", {2, 3, 4}, [](const Tensor& x) { return sum(x); }));
  cases.push_back(unary("mean", "all numbers, to [1]", {2, 3, 4}, [](const Tensor& x) { return mean(x); }));
  struct Reduce {
    const char* name;
    Tensor (*f)(const Tensor&, int, bool);
  };
  for (Reduce op : {Reduce{"sum", sum}, Reduce{"mean", mean}}) {
    for (int axis : {0, 1, -1}) {
      for (bool keepdim : {false, true}) {
        std::string what = "axis " + std::to_string(axis) + (keepdim ? ", keepdim" : "");
        cases.push_back(unary(op.name, what, {2, 3, 4}, [op, axis, keepdim](const Tensor& x) {
          return op.f(x, axis, keepdim);
        }));
      }
    }
    cases.push_back(unary(op.name, "rank 1, axis 0, to [1]", {5}, [op](const Tensor& x) { return op.f(x, 0, false); }));
  }
  cases.push_back(unary("cumsum", "axis -1", {2, 3, 4}, [](const Tensor& x) { return cumsum(x, -1); }));
  cases.push_back(unary("cumsum", "axis 1 (middle)", {2, 3, 4}, [](const Tensor& x) { return cumsum(x, 1); }));
  cases.push_back(unary("cumsum", "axis 0, rank 4", {3, 2, 1, 2}, [](const Tensor& x) { return cumsum(x, 0); }));
  cases.push_back(positive("axis -1", {3, 4}, [](const Tensor& x) { return divide_by_sum(x, -1); }));
  cases.push_back(positive("axis 0", {3, 4}, [](const Tensor& x) { return divide_by_sum(x, 0); }));
  cases.push_back(positive("axis 1 (middle), eps 0.5", {2, 3, 2},
                           [](const Tensor& x) { return divide_by_sum(x, 1, real(0.5)); }));
  explain_op(cases, "sum", "y = Σ_i x_i   (all numbers, or along an axis)",
             "∂x_i += g   (g of the slot x_i was summed into)");
  explain_op(cases, "mean", "y = (1/n) Σ_i x_i   (all numbers, or along an axis of n)",
             "∂x_i += g / n");
  explain_op(cases, "cumsum", "y_i = Σ_{j ≤ i} x_j   along an axis",
             "∂x_j += Σ_{i ≥ j} g_i   (x_j is in every y_i from i = j on)");
  explain_op(cases, "divide_by_sum", "y_i = x_i / (s + ε),  s = Σ_j x_j   along an axis (an L1 normaliser for x ≥ 0)",
             "∂x_j += (g_j − Σ_i g_i y_i) / (s + ε)   (from ∂y_i/∂x_j = (δ_ij − y_i) / (s + ε))");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
