// checks/elementwise.cpp — gradient checks for add, sub, mul, scale, add_scalar, including every broadcast form.
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A case with two random normal inputs of the given shapes.
GradcheckCase binary(std::string op, std::string what, Shape a, Shape b,
                     std::function<Tensor(const Tensor&, const Tensor&)> f) {
  return {std::move(op), std::move(what),
          [a, b](Generator& gen) { return std::vector<Tensor>{Tensor::randn(a, gen), Tensor::randn(b, gen)}; },
          [f](const std::vector<Tensor>& in) { return f(in[0], in[1]); }};
}

}  // namespace

std::vector<GradcheckCase> elementwise_checks() {
  std::vector<GradcheckCase> cases;
  struct Op {
    const char* name;
    Tensor (*f)(const Tensor&, const Tensor&);
  };
  for (Op op : {Op{"add", add}, Op{"sub", sub}, Op{"mul", mul}}) {
    cases.push_back(binary(op.name, "same shape", {2, 3, 4}, {2, 3, 4}, op.f));
    cases.push_back(binary(op.name, "broadcast row", {2, 3, 4}, {4}, op.f));
    cases.push_back(binary(op.name, "broadcast column", {2, 3, 4}, {2, 3, 1}, op.f));
    cases.push_back(binary(op.name, "broadcast both ways", {2, 3, 1, 4}, {2, 1, 5, 4}, op.f));
  }
  cases.push_back({"mul", "same tensor twice (x ⊙ x)",
                   [](Generator& gen) { return std::vector<Tensor>{Tensor::randn({3, 4}, gen)}; },
                   [](const std::vector<Tensor>& in) { return mul(in[0], in[0]); }});
  cases.push_back({"scale", "factor -2.5",
                   [](Generator& gen) { return std::vector<Tensor>{Tensor::randn({2, 5}, gen)}; },
                   [](const std::vector<Tensor>& in) { return scale(in[0], real(-2.5)); }});
  cases.push_back({"add_scalar", "constant 3",
                   [](Generator& gen) { return std::vector<Tensor>{Tensor::randn({4, 3}, gen)}; },
                   [](const std::vector<Tensor>& in) { return add_scalar(in[0], real(3)); }});
  explain_op(cases, "add", "y = a + b   (NumPy broadcasting: a size-1 or missing axis is repeated)",
             "∂a += g,  ∂b += g   (summed over the axes an input was broadcast along)");
  explain_op(cases, "sub", "y = a − b   (broadcasting as add)",
             "∂a += g,  ∂b −= g   (summed over broadcast axes)");
  explain_op(cases, "mul", "y = a ⊙ b   (elementwise product, broadcasting as add)",
             "∂a += g ⊙ b,  ∂b += g ⊙ a   (summed over broadcast axes; x ⊙ x gets both terms: 2 g ⊙ x)");
  explain_op(cases, "scale", "y = c · x   (c a constant number)",
             "∂x += c · g");
  explain_op(cases, "add_scalar", "y = x + c   (c a constant number)",
             "∂x += g");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
