// test_autograd.cpp — facts about the engine: accumulation, zero_grad, no-grad scopes, graph release.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "autograd/backward_hook.h"
#include "autograd/ops.h"
#include "util/error.h"

using namespace attnlab;

TEST_CASE("a tensor used three times receives three gradient contributions") {
  Tensor x = Tensor::from_values({2}, {1.5, -2}, /*requires_grad=*/true);
  Tensor y = sum(add(add(x, x), x));  // y = 3·Σx
  y.backward();
  CHECK(x.grad_values()[0] == doctest::Approx(3));
  CHECK(x.grad_values()[1] == doctest::Approx(3));
}

TEST_CASE("gradients accumulate over backward calls until zero_grad clears them") {
  Tensor w = Tensor::from_values({1}, {2}, true);
  for (int i = 0; i < 2; ++i) sum(mul(w, w)).backward();  // d(w²)/dw = 2w = 4, twice
  CHECK(w.grad_values()[0] == doctest::Approx(8));
  w.zero_grad();
  CHECK(w.grad_values()[0] == 0);
  sum(scale(w, 5)).backward();
  CHECK(w.grad_values()[0] == doctest::Approx(5));
}

TEST_CASE("inside a NoGradGuard nothing is recorded, and the mode is restored after") {
  Tensor w = Tensor::from_values({2}, {1, 2}, true);
  {
    NoGradGuard no_grad;
    CHECK_FALSE(grad_enabled());
    Tensor y = mul(w, w);
    CHECK_FALSE(y.requires_grad());
    CHECK(y.node().inputs.empty());
    CHECK_FALSE(static_cast<bool>(y.node().backward));
    CHECK(std::string(y.op()) == "mul");  // the op is still named, for tracing
    // The ops that return before building their inputs list and backward closure (no_graph, graph.h).
    Tensor m = Tensor::from_values({2, 2}, {1, 2, 3, 4}, true);
    Tensor ones = Tensor::from_values({2}, {1, 1}, true), zeros = Tensor::from_values({2}, {0, 0}, true);
    const std::vector<std::pair<Tensor, std::string>> made{
        {add(w, w), "add"},       {scale(w, 2), "scale"},  {relu(w), "relu"},
        {matmul(m, m), "matmul"}, {softmax(m), "softmax"}, {layer_norm(m, ones, zeros), "layer_norm"}};
    for (const auto& [t, op] : made) {
      const std::string& op_name = op;
      INFO(op_name);
      CHECK_FALSE(t.requires_grad());
      CHECK(t.node().inputs.empty());
      CHECK_FALSE(static_cast<bool>(t.node().backward));
      CHECK(std::string(t.op()) == op);
    }
  }
  CHECK(grad_enabled());
  CHECK(mul(w, w).requires_grad());
}

TEST_CASE("tensors that do not depend on a parameter record no graph") {
  Tensor a = Tensor::full({3}, 1), b = Tensor::full({3}, 2);
  Tensor c = add(a, b);
  CHECK_FALSE(c.requires_grad());
  CHECK(c.node().inputs.empty());
}

TEST_CASE("the graph is released after backward: intermediate tensors are freed") {
  Tensor x = Tensor::from_values({3}, {1, 2, 3}, true);
  std::weak_ptr<TensorNode> intermediate;
  Tensor loss;
  {
    Tensor y = mul(x, x);  // held only by the graph once this scope ends
    intermediate = y.node_ptr();
    loss = sum(y);
  }
  CHECK_FALSE(intermediate.expired());
  loss.backward();
  CHECK(intermediate.expired());
  CHECK(loss.node().inputs.empty());
  CHECK(x.grad_values()[2] == doctest::Approx(6));
}

TEST_CASE("backward needs a single number that depends on something with a gradient") {
  Tensor x = Tensor::from_values({2}, {1, 2}, true);
  CHECK_THROWS_AS(mul(x, x).backward(), Error);                  // [2], not a scalar
  CHECK_THROWS_AS(sum(Tensor::full({2}, 1)).backward(), Error);  // nothing requires a gradient
}

TEST_CASE("a deep chain (100000 ops) runs backward without overflowing the stack") {
  Tensor x = Tensor::from_values({1}, {1}, true);
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = add_scalar(y, 0);
  y.backward();
  CHECK(x.grad_values()[0] == doctest::Approx(1));
}

TEST_CASE("broadcasting shapes that do not fit is an error naming both shapes") {
  Tensor a = Tensor::zeros({2, 3}), b = Tensor::zeros({4});
  CHECK_THROWS_WITH_AS(
      add(a, b), "add: shapes [2, 3] and [4] cannot be broadcast together (sizes 3 and 4 differ and neither is 1)",
      Error);
}

TEST_CASE("add broadcasts a row over every position and a column over every feature") {
  Tensor x = Tensor::from_values({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor row = Tensor::from_values({3}, {10, 20, 30});
  Tensor column = Tensor::from_values({2, 1}, {100, 200});
  CHECK(add(x, row).values() == std::vector<real>{11, 22, 33, 14, 25, 36});
  CHECK(mul(x, column).values() == std::vector<real>{100, 200, 300, 800, 1000, 1200});
  Tensor outer = add(Tensor::from_values({2, 1}, {1, 2}), Tensor::from_values({1, 3}, {10, 20, 30}));
  CHECK(outer.shape() == Shape{2, 3});
  CHECK(outer.values() == std::vector<real>{11, 21, 31, 12, 22, 32});
}

TEST_CASE("backward with a hook names each leaf once, after its last user: a tied weight's gradient is then complete") {
  // W is used at the bottom (h = x·W) and again at the top (y = h₂·Wᵀ), like a tied embedding; V in between.
  Tensor x = Tensor::from_values({1, 2}, {0.5, -1});
  Tensor W = Tensor::from_values({2, 2}, {1, 2, -0.5, 0.25}, true);
  Tensor V = Tensor::from_values({2, 2}, {0.3, -0.7, 1.1, 0.2}, true);
  Tensor loss = sum(matmul(matmul(relu(matmul(x, W)), V), W, false, true));  // [1]
  std::vector<const TensorNode*> reported;
  std::vector<real> W_grad_when_reported;
  backward(loss, [&](const TensorNode& leaf) {
    reported.push_back(&leaf);
    if (&leaf == &W.node()) W_grad_when_reported = leaf.grad;
  });
  REQUIRE(reported.size() == 2);
  CHECK(reported[0] == &V.node());  // V's only user is above W's first use
  CHECK(reported[1] == &W.node());
  CHECK(W_grad_when_reported == W.grad_values());  // nothing was added to W's gradient after it was reported

  // And the hooked backward computes the plain backward's gradients.
  Tensor W2 = Tensor::from_values({2, 2}, W.values(), true), V2 = Tensor::from_values({2, 2}, V.values(), true);
  sum(matmul(matmul(relu(matmul(x, W2)), V2), W2, false, true)).backward();
  CHECK(W2.grad_values() == W.grad_values());
  CHECK(V2.grad_values() == V.grad_values());
}
