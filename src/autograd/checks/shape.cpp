// checks/shape.cpp — gradient checks for reshape, permute, transpose, slice and concat.
//
// A permutation that is its own inverse (a swap) cannot tell p from p⁻¹, so permute is also checked with a
// cycle, whose backward would go wrong if it applied p instead of p⁻¹.
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A case with one random normal input of the given shape.
GradcheckCase unary(std::string op, std::string what, Shape x, std::function<Tensor(const Tensor&)> f) {
  return {std::move(op), std::move(what),
          [x](Generator& gen) { return std::vector<Tensor>{Tensor::randn(x, gen)}; },
          [f](const std::vector<Tensor>& in) { return f(in[0]); }};
}

// A concat case: random normal inputs of the given shapes, joined along `axis`.
GradcheckCase joined(std::string what, std::vector<Shape> shapes, int axis) {
  return {"concat", std::move(what),
          [shapes](Generator& gen) {
            std::vector<Tensor> xs;
            for (const Shape& s : shapes) xs.push_back(Tensor::randn(s, gen));
            return xs;
          },
          [axis](const std::vector<Tensor>& in) { return concat(in, axis); }};
}

}  // namespace

std::vector<GradcheckCase> shape_checks() {
  std::vector<GradcheckCase> cases{
      unary("reshape", "[2, 3, 4] -> [6, 4]", {2, 3, 4}, [](const Tensor& x) { return reshape(x, {6, 4}); }),
      unary("reshape", "[4, 6] -> [2, 2, 3, 2]", {4, 6}, [](const Tensor& x) { return reshape(x, {2, 2, 3, 2}); }),
      unary("permute", "head split [B,T,h,dk]->[B,h,T,dk]", {2, 3, 2, 2},
            [](const Tensor& x) { return permute(x, {0, 2, 1, 3}); }),
      unary("permute", "3-cycle {1, 2, 0}", {2, 3, 4}, [](const Tensor& x) { return permute(x, {1, 2, 0}); }),
      unary("permute", "4-D {-1, 0, 2, 1} (negative axis)", {2, 3, 2, 4},
            [](const Tensor& x) { return permute(x, {-1, 0, 2, 1}); }),
      unary("transpose", "last two axes", {2, 3, 4}, [](const Tensor& x) { return transpose(x, -1, -2); }),
      unary("transpose", "axes 0 and 2", {2, 3, 4}, [](const Tensor& x) { return transpose(x, 0, 2); }),
      unary("slice", "first axis [1, 3)", {4, 3}, [](const Tensor& x) { return slice(x, 0, 1, 3); }),
      unary("slice", "middle axis [1, 4)", {2, 5, 3}, [](const Tensor& x) { return slice(x, 1, 1, 4); }),
      unary("slice", "last axis [2, 5)", {2, 3, 6}, [](const Tensor& x) { return slice(x, 2, 2, 5); }),
      unary("slice", "axis -2 [0, 2)", {2, 4, 3}, [](const Tensor& x) { return slice(x, -2, 0, 2); }),
      joined("3 tensors along inner axis 1", {{2, 1, 3}, {2, 3, 3}, {2, 2, 3}}, 1),
      joined("3 tensors along axis 0", {{1, 3}, {2, 3}, {3, 3}}, 0),
      joined("2 tensors along axis -1", {{2, 2}, {2, 3}}, -1),
  };
  explain_op(cases, "reshape", "y = reshape(x, s): the same numbers read in the same row-major order, a new shape",
             "∂x_i += g_i");
  explain_op(cases, "permute",
             "y = permute(x, p): y.shape[a] = x.shape[p[a]], y[i_0, …, i_r−1] = x[j] with j_p[a] = i_a",
             "∂x += permute(g, p⁻¹), p⁻¹[p[a]] = a");
  explain_op(cases, "transpose", "y = transpose(x, a, b): permute swapping axes a and b",
             "∂x += transpose(g, a, b)   (a swap undoes itself)");
  explain_op(cases, "slice", "y = slice(x, axis, s, e): y[…, i, …] = x[…, s + i, …] for 0 ≤ i < e − s",
             "∂x[…, s + i, …] += g[…, i, …]; numbers outside [s, e) get 0");
  explain_op(cases, "concat",
             "y = concat({x_0, x_1, …}, axis): y[…, o_t + i, …] = x_t[…, i, …], o_t = Σ_{u<t} x_u.shape[axis]",
             "∂x_t[…, i, …] += g[…, o_t + i, …]");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
