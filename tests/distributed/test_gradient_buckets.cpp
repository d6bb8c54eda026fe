// test_gradient_buckets.cpp — the buckets of src/distributed/gradient_buckets.h as facts, in one process (where a sum
// over one rank changes nothing; tests/distributed/mpi_test.sh runs them on 2 ranks and checks the losses bit for bit):
//   * buckets are cut from the last parameter back to the first, at about train.allreduce_bucket_mb, and a
//     parameter larger than that travels alone;
//   * during backward a bucket starts as soon as its parameters are complete, in order; a bucket with a
//     parameter that backward never reaches waits for finish();
//   * after finish() every gradient is the plain backward's, and a parameter without one still has none.
#include <doctest/doctest.h>

#include <vector>

#include "autograd/ops.h"
#include "distributed/gradient_buckets.h"

using namespace attnlab;

namespace {

std::vector<NamedParameter> parameters_of(const std::vector<int64_t>& sizes) {
  std::vector<NamedParameter> parameters;
  for (size_t i = 0; i < sizes.size(); ++i) {
    parameters.push_back({"p" + std::to_string(i), Tensor::full(Shape{sizes[i]}, real(0.5), true)});
  }
  return parameters;
}

// A chain through the first parameters (each [4, 4]) of `parameters`: loss = Σ relu(… relu(x·W₀)·W₁ …).
Tensor chain_loss(const std::vector<Tensor>& weights) {
  Tensor h = Tensor::from_values({1, 4}, {1, -2, 0.5, 3});   // [1, 4]
  for (const Tensor& W : weights) h = relu(matmul(h, W));    // [1, 4]
  return sum(h);                                             // [1]
}

std::vector<Tensor> chain_weights(int layers) {
  std::vector<Tensor> weights;
  for (int l = 0; l < layers; ++l) {
    std::vector<real> values(16);
    for (int j = 0; j < 16; ++j) values[static_cast<size_t>(j)] = real(0.1) * real((j * 7 + l * 3) % 11 - 4);
    weights.push_back(Tensor::from_values({4, 4}, values, true));
  }
  return weights;
}

}  // namespace

TEST_CASE("buckets are cut from the last parameter back, at about the size asked for; a larger parameter goes alone") {
  const double one_mb_numbers = 1024.0 * 1024.0 / sizeof(real);
  const auto n = [&](double share) { return static_cast<int64_t>(share * one_mb_numbers); };
  // Last first: p3 (1.2 MB, alone), then p2 + p1 + p0 (0.01 + 0.4 + 0.4 MB) in one bucket.
  CHECK(GradientBuckets(parameters_of({n(0.4), n(0.4), n(0.01), n(1.2)}), 1.0).bucket_count() == 2);
  // p3 + p2 (0.6 + 0.3), then p1 (0.3 more would make 1.2), then p0 (0.8 more would make 1.1).
  CHECK(GradientBuckets(parameters_of({n(0.8), n(0.3), n(0.3), n(0.6)}), 1.0).bucket_count() == 3);
  CHECK(GradientBuckets(parameters_of({5, 7, 1}), 1000.0).bucket_count() == 1);
}

TEST_CASE("buckets start during backward as their gradients complete, and finish() leaves the plain gradients") {
  std::vector<Tensor> weights = chain_weights(4);
  std::vector<NamedParameter> parameters;
  for (size_t l = 0; l < weights.size(); ++l) parameters.push_back({"layers." + std::to_string(l), weights[l]});
  parameters.push_back({"unused", Tensor::full(Shape{4}, real(1), true)});   // never reached by backward

  GradientBuckets buckets(parameters, 1e-6);   // a bucket per parameter: 5 buckets, "unused" the first
  REQUIRE(buckets.bucket_count() == 5);
  buckets.expect_backward();
  backward(chain_loss(weights), [&](const TensorNode& leaf) { buckets.gradient_final(leaf); });
  // "unused" is the first bucket to start, and backward never completes it: nothing may start before it.
  CHECK(buckets.started_during_backward() == 0);
  buckets.finish();

  std::vector<Tensor> plain = chain_weights(4);
  chain_loss(plain).backward();
  for (size_t l = 0; l < weights.size(); ++l) CHECK(weights[l].grad_values() == plain[l].grad_values());
  CHECK_FALSE(parameters.back().tensor.has_grad());

  // Without the unreached one, every bucket starts while backward runs, from the last layer down.
  parameters.pop_back();
  GradientBuckets all_reached(parameters, 1e-6);
  for (const Tensor& W : weights) W.zero_grad();
  all_reached.expect_backward();
  backward(chain_loss(weights), [&](const TensorNode& leaf) { all_reached.gradient_final(leaf); });
  CHECK(all_reached.started_during_backward() == 4);
  all_reached.finish();
  for (size_t l = 0; l < weights.size(); ++l) CHECK(weights[l].grad_values() == plain[l].grad_values());
}
