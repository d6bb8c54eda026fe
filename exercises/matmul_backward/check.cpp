// check.cpp — matmul_backward against the library's matmul backward on one case, then central differences.
//
// linear_with_your_backward() is y = x · Wᵀ as an op of the engine whose backward function is yours: the forward
// is the library's matmul (src/autograd/ops/matmul.cpp), called as Linear calls it (src/nn/linear.cpp), and
// record() (autograd/graph.h) links y to x and W with a backward that calls matmul_backward(x, W, ∂y) and adds
// your ∂x and ∂W into their gradients. run_gradcheck (autograd/gradcheck.h) then compares them with
// (L(x + h·e_i) − L(x − h·e_i)) / 2h, L = Σ y ⊙ R, for every number of x and of W.
// Before that, one direct call on x [2, 3, 4], W [5, 4] is compared with what the usual mistakes give, to name one.
#include <string>
#include <tuple>
#include <vector>

#include "autograd/ops.h"
#include "autograd/ops/add_to_grad.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

// ∂t += yours, the one line every backward of src/autograd/ops/ writes (add_to_grad.h). A gradient of the wrong
// shape is left out here: the check reports it before the gradient check.
void add_gradient(const Tensor& t, const Tensor& yours) {
  if (!yours.defined() || yours.shape() != t.shape()) return;
  const real* gradient = yours.data();
  add_to_grad(t, [=](int64_t i) { return gradient[i]; });
}

Tensor linear_with_your_backward(const Tensor& x, const Tensor& W) {
  Tensor y;                                                          // [..., d_out]
  {
    NoGradGuard forward_only;                                        // the library's forward, with no graph
    y = matmul(x, W, /*transpose_a=*/false, /*transpose_b=*/true);   // y = x · Wᵀ, as in src/nn/linear.cpp
  }
  record(y, "matmul with your backward", {x, W}, [x, W](TensorNode& out) {
    const Tensor g = Tensor::from_values(out.shape, out.grad);       // ∂loss/∂y, [..., d_out]
    const MatmulGradients yours = matmul_backward(x, W, g);
    add_gradient(x, yours.dx);
    add_gradient(W, yours.dW);
  });
  return y;
}

// The library's own ∂x and ∂W for L = Σ y ⊙ g: what matmul's backward puts into x and W.
MatmulGradients library_gradients(const Tensor& x, const Tensor& W, const Tensor& g) {
  Tensor x_in = x.detach(), W_in = W.detach();
  x_in.set_requires_grad(true);
  W_in.set_requires_grad(true);
  sum(mul(matmul(x_in, W_in, false, true), g)).backward();
  return {Tensor::from_values(x.shape(), x_in.grad_values()), Tensor::from_values(W.shape(), W_in.grad_values())};
}

const std::string zero_hint =
    "Your matmul_backward returns zeros here (the shipped stub): fill in the TODO in "
    "exercises/matmul_backward/exercise.cpp.";
const std::string hint =
    "y[r, o] = Σ_i x[r, i] · W[o, i]: x[r, i] meets W[o, i] in every output o of its row, and W[o, i] meets x[r, i] "
    "in every row r. Check each gradient by its shapes: ∂x [rows, d_in], ∂W [d_out, d_in]. The table of "
    "src/autograd/ops/matmul.cpp's opening comment has all four cases (ours is C = A · Bᵀ).";
const std::vector<std::string> gradient_hints{
    "∂x[r, i] = Σ_o g[r, o] · W[o, i], that is ∂x = g · W ([rows, d_out] · [d_out, d_in]); W[o, i] is "
    "W.data()[o * d_in + i] (src/autograd/ops/matmul.cpp, the row C = A · Bᵀ).",
    "∂W[o, i] = Σ_r g[r, o] · x[r, i] over ALL rows (every leading axis of x), that is ∂W = gᵀ · x ([d_out, rows] · "
    "[rows, d_in]) (src/autograd/ops/matmul.cpp, the row C = A · Bᵀ)."};

std::vector<Mistake> dx_mistakes(const Tensor& W, const Tensor& g) {
  const int64_t d_out = W.shape()[0], d_in = W.shape()[1];
  return {{"dx_transposed_w", "∂x read W as if it were stored [d_in, d_out] (W.data()[i * d_out + o] for W[o, i])",
           matmul(g, reshape(W, {d_in, d_out}), false, true),
           "W is stored [d_out, d_in], as PyTorch's nn.Linear.weight, and y = x · Wᵀ: W[o, i] is "
           "W.data()[o * d_in + i], and ∂x[r, i] = Σ_o g[r, o] · W[o, i], ∂x = g · W. (A paper's y = x · W has "
           "W [d_in, d_out]: the same layer, W stored the other way round.)"}};
}

std::vector<Mistake> dw_mistakes(const Tensor& x, const Tensor& g, const Tensor& right) {
  const int64_t rows = x.shape().rows(), d_in = x.shape().cols(), d_out = g.shape().cols();
  const Tensor x2 = reshape(x, {rows, d_in}), g2 = reshape(g, {rows, d_out});   // [rows, d_in], [rows, d_out]
  const Tensor x_t_g = matmul(x2, g2, true, false);                            // xᵀ · g, [d_in, d_out]
  const std::string transposed_fix =
      "∂W must have W's shape [d_out, d_in], entry ∂W[o, i] = Σ_r g[r, o] · x[r, i] at dW.data()[o * d_in + i]: "
      "∂W = gᵀ · x, not xᵀ · g (its transpose).";
  const std::string sum_fix =
      "W is used by every row (every position of every batch entry), so ∂W[o, i] = Σ_r g[r, o] · x[r, i] sums over "
      "all rows = x.shape().rows(): add (+=) each row's g[r, o] · x[r, i] into one [d_out, d_in] matrix.";
  std::vector<Mistake> mistakes{
      {"dw_transposed", "∂W is xᵀ · g [d_in, d_out], the transpose of W's gradient", x_t_g, transposed_fix},
      {"dw_transposed", "∂W holds xᵀ · g [d_in, d_out] laid out in W's [d_out, d_in] (∂W[o, i] at i * d_out + o)",
       reshape(x_t_g, {d_out, d_in}), transposed_fix},
      {"no_sum_over_rows", "∂W is the last row's g[r, o] · x[r, i] alone: each row overwrote the one before",
       matmul(slice(g2, 0, rows - 1, rows), slice(x2, 0, rows - 1, rows), true, false), sum_fix},
      {"dw_divided_by_rows", "∂W is the right one ÷ rows: a mean over the rows, where the rows add up",
       scale(right, 1 / static_cast<real>(rows)),
       "∂W[o, i] = Σ_r g[r, o] · x[r, i] is a sum: each row's y depends on W, and the chain rule adds their "
       "contributions. (A mean over the batch, if the loss takes one, is already in g.)"}};
  if (x.rank() == 3) {
    mistakes.push_back({"no_sum_over_rows", "∂W is one matrix per batch entry, [B, d_out, d_in], not their sum",
                        matmul(g, x, true, false), sum_fix});
  }
  return mistakes;
}

void check() {
  // One direct call first: x [2, 3, 4] (6 rows), W [5, 4], g [2, 3, 5] — no two sizes equal, so a transposed
  // gradient has the wrong shape and a missing sum the wrong numbers.
  Generator gen(7);
  const Tensor x = Tensor::randn({2, 3, 4}, gen), W = Tensor::randn({5, 4}, gen), g = Tensor::randn({2, 3, 5}, gen);
  const MatmulGradients right = library_gradients(x, W, g), yours = matmul_backward(x, W, g);
  std::vector<std::string> input = tensor_lines("x", x);
  for (const std::string& line : tensor_lines("W", W)) input.push_back(line);
  for (const std::string& line : tensor_lines("g", g)) input.push_back(line);
  diagnose(right.dx, yours.dx, dx_mistakes(W, g), input);
  diagnose(right.dW, yours.dW, dw_mistakes(x, g, right.dW), input);
  for (const auto& [name, gradient, like] : {std::tuple{"dx", yours.dx, x}, std::tuple{"dW", yours.dW, W}}) {
    if (!gradient.defined() || gradient.shape() != like.shape()) {
      fail(std::string(name) + " has the wrong shape", {"x [2, 3, 4], W [5, 4], g [2, 3, 5]"},
           std::string(name) + " must have shape " + like.shape().str() + ", yours is " +
               (gradient.defined() ? gradient.shape().str() : "an empty Tensor") +
               ": start from Tensor::zeros(x.shape()) for dx and Tensor::zeros(W.shape()) for dW. " + hint);
    }
  }

  struct Case {
    const char* what;
    Shape x_shape, W_shape;
  };
  for (const Case& c : {Case{"x [3, 4], W [5, 4]: 3 rows, 4 in, 5 out", {3, 4}, {5, 4}},
                        Case{"x [2, 3, 4], W [2, 4]: leading axes are rows too, all 6 share W", {2, 3, 4}, {2, 4}},
                        Case{"x [1, 6], W [3, 6]: a single row", {1, 6}, {3, 6}}}) {
    const GradcheckCase gradcheck{
        "matmul_backward", c.what,
        [c](Generator& gen) {
          return std::vector<Tensor>{Tensor::randn(c.x_shape, gen), Tensor::randn(c.W_shape, gen)};
        },
        [](const std::vector<Tensor>& inputs) { return linear_with_your_backward(inputs[0], inputs[1]); }};
    expect_gradients(gradcheck, {"x", "W"}, gradient_hints, zero_hint);
  }
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("matmul_backward", attnlab::exercises::hint, attnlab::exercises::check);
}
