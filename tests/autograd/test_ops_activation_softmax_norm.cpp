// test_ops_activation_softmax_norm.cpp — facts about the activations, softmax and layer_norm, in float32
// (the precision training runs in). Their gradients are checked separately, in float64 (f64_gradcheck.cpp).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "autograd/ops.h"
#include "util/error.h"

using namespace attnlab;

namespace {

constexpr real hidden = -std::numeric_limits<real>::infinity();       // a mask entry that hides a key

bool all_finite(const std::vector<real>& numbers) {
  for (real v : numbers) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

// Σ y ⊙ w with weights that differ per number, so that the gradient of a softmax is not trivially 0.
Tensor weighted_sum(const Tensor& y) {
  std::vector<real> weights(static_cast<size_t>(y.numel()));
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<real>(i % 5) - real(1.5);
  return sum(mul(y, Tensor::from_values(y.shape(), weights)));
}

}  // namespace

TEST_CASE("every row of a softmax sums to 1, and each entry is a probability") {
  Generator gen(1);
  Tensor y = softmax(Tensor::randn({2, 3, 7}, gen, 3));                 // [2, 3, 7]
  for (int64_t r = 0; r < 6; ++r) {
    real total = 0;
    for (int64_t j = 0; j < 7; ++j) {
      real p = y.data()[r * 7 + j];
      CHECK(p >= 0);
      CHECK(p <= 1);
      total += p;
    }
    CHECK(total == doctest::Approx(1).epsilon(1e-6));
  }
}

TEST_CASE("masked entries get probability exactly 0, and the rest still sum to 1") {
  // A padding mask [B, 1, 1, T] over scores [B, h, T, T]: in batch 1 the last two keys are padding.
  Generator gen(2);
  Tensor scores = Tensor::randn({2, 2, 4, 4}, gen);                     // [B, h, T, T]
  Tensor mask = Tensor::from_values({2, 1, 1, 4}, {0, 0, 0, 0, 0, 0, hidden, hidden});  // [B, 1, 1, T]
  Tensor y = softmax(scores, mask);                                     // [B, h, T, T]
  for (int64_t head = 0; head < 2; ++head)
    for (int64_t query = 0; query < 4; ++query) {
      CHECK(y.at({1, head, query, 2}) == 0);
      CHECK(y.at({1, head, query, 3}) == 0);
      CHECK(y.at({1, head, query, 0}) + y.at({1, head, query, 1}) == doctest::Approx(1));
      CHECK(y.at({0, head, query, 3}) > 0);
    }
}

TEST_CASE("a causal mask [T, T] hides the future: position i gives weight 0 to every key j > i") {
  Generator gen(3);
  Tensor mask = Tensor::zeros({3, 3});                                  // [T, T]
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = i + 1; j < 3; ++j) mask.values()[i * 3 + j] = hidden;
  Tensor y = softmax(Tensor::randn({2, 3, 3}, gen), mask);              // [B, T, T]
  for (int64_t b = 0; b < 2; ++b) {
    CHECK(y.at({b, 0, 0}) == 1);
    CHECK(y.at({b, 0, 1}) == 0);
    CHECK(y.at({b, 0, 2}) == 0);
    CHECK(y.at({b, 1, 2}) == 0);
    CHECK(y.at({b, 2, 2}) > 0);
  }
}

TEST_CASE("a fully masked row gives zeros and no NaN, forward and backward, and passes no gradient") {
  Tensor x = Tensor::from_values({2, 3}, {0.5, -1, 2, 0.5, -1, 2}, /*requires_grad=*/true);  // [2, 3]
  Tensor mask = Tensor::from_values({2, 3}, {0, hidden, 0, hidden, hidden, hidden});          // row 1 all hidden
  Tensor y = softmax(x, mask);                                          // [2, 3]
  CHECK(all_finite(y.values()));
  CHECK(y.at({1, 0}) == 0);
  CHECK(y.at({1, 1}) == 0);
  CHECK(y.at({1, 2}) == 0);
  CHECK(y.at({0, 0}) + y.at({0, 2}) == doctest::Approx(1));
  weighted_sum(y).backward();
  REQUIRE(x.has_grad());
  CHECK(all_finite(x.grad_values()));
  CHECK(x.grad_values()[1] == 0);                                       // a hidden entry of a live row
  for (size_t i = 3; i < 6; ++i) CHECK(x.grad_values()[i] == 0);        // the dead row
  CHECK(x.grad_values()[0] != 0);
}

TEST_CASE("the mask is a constant: it never receives a gradient") {
  Tensor x = Tensor::from_values({1, 3}, {1, 2, 3}, true);
  Tensor mask = Tensor::from_values({3}, {0, 0, hidden}, true);         // even if someone asks for one
  weighted_sum(softmax(x, mask)).backward();
  CHECK(x.has_grad());
  CHECK_FALSE(mask.has_grad());
}

TEST_CASE("softmax is shift-invariant and stable for logits around 1000") {
  Tensor x = Tensor::from_values({2, 3}, {1, 2, 3, -1, 0, 4});
  Tensor shifted = add_scalar(x, 1000);
  Tensor y = softmax(x), y_shifted = softmax(shifted);
  CHECK(all_finite(y_shifted.values()));
  for (size_t i = 0; i < 6; ++i) CHECK(y_shifted.values()[i] == doctest::Approx(y.values()[i]).epsilon(1e-5));
  Tensor extreme = softmax(Tensor::from_values({3}, {1000, 0, -1000}));
  CHECK(extreme.values() == std::vector<real>{1, 0, 0});
}

TEST_CASE("log_softmax equals log(softmax) where that is finite, and stays finite for large logits") {
  Generator gen(4);
  Tensor x = Tensor::randn({3, 6}, gen, 2);                             // [3, 6]
  Tensor ls = log_softmax(x), s = softmax(x);
  for (size_t i = 0; i < 18; ++i) CHECK(ls.values()[i] == doctest::Approx(std::log(s.values()[i])).epsilon(1e-5));

  // softmax of [1000, 0, -1000] is [1, 0, 0] in float32: log would give -inf, log_softmax gives the exact values.
  Tensor large = log_softmax(Tensor::from_values({3}, {1000, 0, -1000}));
  CHECK(all_finite(large.values()));
  CHECK(large.values()[0] == doctest::Approx(0));
  CHECK(large.values()[1] == doctest::Approx(-1000));
  CHECK(large.values()[2] == doctest::Approx(-2000));

  // A row that is −inf everywhere is log 0 = −inf everywhere (the log of softmax's all-zero row), not NaN.
  Tensor dead = log_softmax(Tensor::from_values({2, 2}, {hidden, hidden, 0, hidden}));
  CHECK(dead.values() == std::vector<real>{hidden, hidden, 0, hidden});
}

TEST_CASE("gelu is the exact erf form: gelu(1) = 0.8413447 and gelu(-1) = -0.1586553, as in PyTorch") {
  Tensor y = gelu(Tensor::from_values({4}, {1, -1, 0, 6}));
  CHECK(y.values()[0] == doctest::Approx(0.8413447).epsilon(1e-6));
  CHECK(y.values()[1] == doctest::Approx(-0.1586553).epsilon(1e-6));
  CHECK(y.values()[2] == 0);
  CHECK(y.values()[3] == doctest::Approx(6));
  // The tanh approximation would give 0.8411920 at 1: far outside the tolerance above.
}

TEST_CASE("relu, tanh, exp and elu_plus_one give the textbook values") {
  Tensor x = Tensor::from_values({4}, {-2, -0.5, 0.5, 3});
  CHECK(relu(x).values() == std::vector<real>{0, 0, 0.5, 3});
  Tensor e = elu_plus_one(x);
  CHECK(e.values()[0] == doctest::Approx(std::exp(-2.0)));
  CHECK(e.values()[1] == doctest::Approx(std::exp(-0.5)));
  CHECK(e.values()[2] == doctest::Approx(1.5));
  CHECK(e.values()[3] == doctest::Approx(4));
  for (real v : e.values()) CHECK(v > 0);                               // a positive feature map
  CHECK(tanh(x).values()[3] == doctest::Approx(std::tanh(3.0)));
  CHECK(exp(x).values()[0] == doctest::Approx(std::exp(-2.0)));
}

TEST_CASE("log follows IEEE arithmetic: log 0 is -inf, log of a negative number is NaN, nothing throws") {
  Tensor y = log(Tensor::from_values({3}, {0, -1, std::exp(real(2))}));
  CHECK(y.values()[0] == hidden);
  CHECK(std::isnan(y.values()[1]));
  CHECK(y.values()[2] == doctest::Approx(2));
}

TEST_CASE("layer_norm rows have mean 0 and biased variance 1 before gamma and beta, which then apply") {
  Generator gen(5);
  const int64_t d = 16;
  Tensor x = add_scalar(Tensor::randn({2, 3, d}, gen, 4), 7);           // [B, T, d], far from mean 0, variance 1
  Tensor y = layer_norm(x, Tensor::full({d}, 1), Tensor::zeros({d}));   // [B, T, d]
  for (int64_t r = 0; r < 6; ++r) {
    double mean = 0, variance = 0;
    for (int64_t j = 0; j < d; ++j) mean += y.data()[r * d + j];
    mean /= d;
    for (int64_t j = 0; j < d; ++j) variance += (y.data()[r * d + j] - mean) * (y.data()[r * d + j] - mean);
    variance /= d;                                                      // biased: ÷ d
    CHECK(mean == doctest::Approx(0).epsilon(1e-5));
    CHECK(variance == doctest::Approx(1).epsilon(1e-4));
  }
  Tensor scaled = layer_norm(x, Tensor::full({d}, 2), Tensor::full({d}, 3));
  for (size_t i = 0; i < scaled.values().size(); ++i) {
    CHECK(scaled.values()[i] == doctest::Approx(2 * y.values()[i] + 3).epsilon(1e-5));
  }
}

TEST_CASE("a mask that does not fit the scores is an error naming softmax and both shapes") {
  Tensor scores = Tensor::zeros({2, 2, 4, 4});                          // [B, h, T, T]
  CHECK_THROWS_WITH_AS(softmax(scores, Tensor::zeros({2, 1, 1, 5})),
                       doctest::Contains("softmax: shapes [2, 2, 4, 4] and [2, 1, 1, 5]"), Error);
  // Broadcastable, but it would make the output bigger than the scores.
  CHECK_THROWS_WITH_AS(softmax(Tensor::zeros({4, 4}), Tensor::zeros({2, 1, 4, 4})),
                       doctest::Contains("softmax: the mask of shape [2, 1, 4, 4]"), Error);
}

TEST_CASE("gamma or beta of the wrong size is an error naming layer_norm and the shapes") {
  Tensor x = Tensor::zeros({2, 3, 8});
  CHECK_THROWS_WITH_AS(layer_norm(x, Tensor::zeros({7}), Tensor::zeros({8})),
                       doctest::Contains("layer_norm: gamma and beta must have shape [8]"), Error);
  CHECK_THROWS_WITH_AS(layer_norm(x, Tensor::zeros({8}), Tensor::zeros({2, 8})),
                       doctest::Contains("beta [2, 8]"), Error);
}
