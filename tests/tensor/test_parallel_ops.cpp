// test_parallel_ops.cpp — the elementwise ops run in parallel chunks (src/tensor/parallel.h) and write the
// first gradient a tensor receives instead of adding it to zeros: neither changes what they compute. The
// results are the same bits on 1 and on 2 threads, and equal to the plain loops; gradients that meet in one tensor
// (x + x, a residual stream used twice) add up as the chain rule says.
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <vector>

#include "autograd/ops.h"

using namespace attnlab;

namespace {

// The gradient of every leaf after backward from sum(y ⊙ W), W fixed: one number per element to compare.
struct Outcome {
  std::vector<real> y, gx, gb;
};

// A chain of the parallel ops on [5, 7001] (several chunks and a ragged last one) and a bias of [7001].
Outcome run_chain(int threads) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  Generator data(3), drop(4);
  Tensor x = Tensor::randn({5, 7001}, data, 1, true);
  Tensor bias = Tensor::randn({7001}, data, 1, true);
  Tensor W = Tensor::randn({5, 7001}, data);
  Tensor h = add(x, bias);                                              // broadcast add
  h = add(relu(h), scale(h, real(0.5)));                                // h used twice: two gradient paths
  h = sub(dropout(h, real(0.2), drop), add_scalar(x, 1));
  h = mul(gelu(h), tanh(h));
  Tensor y = layer_norm(h, Tensor::full({7001}, 1, true), Tensor::zeros({7001}, true));
  sum(mul(y, W)).backward();
  omp_set_num_threads(before);
  return {y.values(), x.grad_values(), bias.grad_values()};
}

}  // namespace

TEST_CASE("the elementwise ops, their gradients and layer_norm give the same bits on 1 and on 2 threads") {
  const Outcome one = run_chain(1), two = run_chain(2);
  CHECK(one.y == two.y);
  CHECK(one.gx == two.gx);
  CHECK(one.gb == two.gb);
}

TEST_CASE("x + x passes the gradient twice to x, and x - x passes nothing") {
  Generator data(5);
  Tensor x = Tensor::randn({3, 2000}, data, 1, true);
  sum(add(x, x)).backward();
  for (real g : x.grad_values()) REQUIRE(g == 2);
  x.zero_grad();
  sum(sub(x, x)).backward();
  for (real g : x.grad_values()) REQUIRE(g == 0);
}

TEST_CASE("a gradient written first and one added later sum as in the chain rule: residual y = x + relu(x)") {
  Tensor x = Tensor::from_values({4000}, std::vector<real>(4000, real(0)), true);
  for (int64_t i = 0; i < 4000; ++i) x.data()[i] = real(i % 3) - 1;    // -1, 0, 1, …
  Tensor W = Tensor::full({4000}, 3);
  sum(mul(add(x, relu(x)), W)).backward();                              // ∂x = 3 · (1 + [x > 0])
  for (int64_t i = 0; i < 4000; ++i) {
    INFO("x = ", x.data()[i]);
    REQUIRE(x.grad()[i] == (x.data()[i] > 0 ? 6 : 3));
  }
}

TEST_CASE("the bias gradient of a broadcast add is the sum over rows, the same bits on 1 and on 2 threads") {
  auto bias_gradient = [](int threads) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    Generator data(8);
    Tensor x = Tensor::randn({2, 300, 200}, data, 1, true);             // 600 rows: 10 chunks of 64 rows
    Tensor b = Tensor::randn({200}, data, 1, true);
    Tensor W = Tensor::randn({2, 300, 200}, data);
    sum(mul(sub(x, b), W)).backward();                                  // ∂b = −Σ_rows W
    omp_set_num_threads(before);
    return b.grad_values();
  };
  CHECK(bias_gradient(1) == bias_gradient(2));
}

TEST_CASE("the bias gradient of a broadcast add is the sum over rows, as the plain loop gives it") {
  Generator data(6);
  const int64_t rows = 300, d = 50;
  Tensor x = Tensor::randn({rows, d}, data, 1, true);
  Tensor b = Tensor::randn({d}, data, 1, true);
  Tensor W = Tensor::randn({rows, d}, data);
  sum(mul(add(x, b), W)).backward();
  for (int64_t j = 0; j < d; ++j) {
    double expected = 0;                                                // Σ_rows W[r, j], in row order
    for (int64_t r = 0; r < rows; ++r) expected += W.data()[r * d + j];
    REQUIRE(std::abs(b.grad()[j] - expected) <= 1e-4 * (1 + std::abs(expected)));
  }
  for (int64_t e = 0; e < rows * d; ++e) REQUIRE(x.grad()[e] == W.data()[e]);
}
