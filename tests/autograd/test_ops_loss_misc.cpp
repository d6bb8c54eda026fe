// test_ops_loss_misc.cpp — facts about dropout, embedding, the reductions and the cross-entropy loss (float32).
//
// The gradients themselves are checked against finite differences in float64 (f64_gradcheck.cpp); these tests
// pin down the forward values, the randomness and the error messages.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "autograd/ops.h"
#include "util/error.h"

using namespace attnlab;

// ---- dropout ----

TEST_CASE("dropout keeps the expected value: the mean of dropout(ones) over 100000 numbers is about 1") {
  Generator gen(42);
  Tensor y = dropout(Tensor::full({100000}, 1), real(0.3), gen);        // [100000]
  CHECK(mean(y).item() == doctest::Approx(1).epsilon(0.01));            // standard error ≈ 0.002
}

TEST_CASE("dropout zeroes about a fraction p of the numbers and scales the rest by 1/(1 - p)") {
  Generator gen(7);
  const real p = real(0.25);
  Tensor y = dropout(Tensor::full({100000}, 2), p, gen);
  int64_t zeros = 0;
  bool survivors_scaled = true;
  for (real v : y.values()) {
    if (v == 0) {
      ++zeros;
    } else {
      survivors_scaled &= std::abs(v - real(2) / (1 - p)) < real(1e-5);
    }
  }
  CHECK(static_cast<double>(zeros) / 100000 == doctest::Approx(0.25).epsilon(0.04));  // ±0.01, std ≈ 0.0014
  CHECK(survivors_scaled);
}

TEST_CASE("dropout with the same seed drops the same numbers; another seed drops others") {
  Tensor x = Tensor::full({1000}, 1);
  Generator a(5), b(5), c(6);
  Tensor ya = dropout(x, real(0.5), a), yb = dropout(x, real(0.5), b), yc = dropout(x, real(0.5), c);
  CHECK(ya.values() == yb.values());
  CHECK(ya.values() != yc.values());
}

TEST_CASE("dropout passes gradient only through the numbers it kept, scaled like them") {
  Generator gen(3);
  Tensor x = Tensor::full({200}, 1, /*requires_grad=*/true);
  Tensor y = dropout(x, real(0.5), gen);                                // y_i = m_i
  sum(y).backward();
  CHECK(x.grad_values() == y.values());                                 // ∂Σy/∂x_i = m_i
}

namespace {

// The mask value of element i under key k, written out from the formula in ops/dropout.cpp, one element at a time.
real reference_mask_value(uint64_t key, int64_t i, real p) {
  uint64_t z = key + static_cast<uint64_t>(i / 2 + 1) * 0x9E3779B97F4A7C15ull;  // SplitMix64 state of pair i / 2
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const uint64_t u = i % 2 == 0 ? (z & 0xffffffffu) : (z >> 32);       // low half for even i, high for odd
  return u < static_cast<uint64_t>(std::llround(double(p) * 0x1.0p32)) ? real(0) : real(1) / (1 - p);
}

}  // namespace

TEST_CASE("dropout's mask is SplitMix64 of (key, pair index), element by element, from one key drawn per call") {
  const real p = real(0.3);
  Generator gen(17), keys(17);
  const uint64_t key = keys.next_u64();                                 // the one draw dropout makes
  Tensor y = dropout(Tensor::full({40001}, 1), p, gen);                 // odd length: the last pair is half used
  for (int64_t i = 0; i < y.numel(); ++i) {
    REQUIRE(y.data()[i] == reference_mask_value(key, i, p));
  }
  CHECK(gen.state() == keys.state());                                   // exactly one draw, whatever the size
}

TEST_CASE("dropout_mask from any first element is that slice of the whole mask") {
  const real p = real(0.5);
  const uint64_t key = 0x0123456789abcdefull;
  std::vector<real> whole(1000);
  dropout_mask(key, 0, 1000, p, whole.data());
  for (int64_t first : {0, 1, 2, 127, 128, 129, 333}) {
    for (int64_t count : {1, 2, 7, 128, 129, 300}) {
      std::vector<real> part(static_cast<size_t>(count));
      dropout_mask(key, first, count, p, part.data());
      CAPTURE(first);
      CAPTURE(count);
      CHECK(std::equal(part.begin(), part.end(), whole.begin() + first));
    }
  }
}

TEST_CASE("dropout drops the same numbers and passes the same gradient on 1 and on 2 threads") {
  auto run = [](int threads) {
    const int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    Generator gen(23), data(1);
    Tensor x = Tensor::randn({5, 30001}, data, 1, true);                // several parallel chunks and a ragged end
    Tensor y = dropout(x, real(0.1), gen);
    sum(mul(y, y)).backward();
    omp_set_num_threads(before);
    return std::pair{y.values(), x.grad_values()};
  };
  CHECK(run(1) == run(2));
}

TEST_CASE("dropout with p = 0 returns the numbers unchanged but is still recorded") {
  Generator gen(1);
  Tensor x = Tensor::from_values({2, 2}, {1, -2, 3, 4}, true);
  const std::string before = gen.state();
  Tensor y = dropout(x, 0, gen);
  CHECK(y.values() == x.values());
  CHECK(std::string(y.op()) == "dropout");
  CHECK(y.requires_grad());
  CHECK(gen.state() == before);                                         // nothing drawn
}

TEST_CASE("dropout refuses p outside [0, 1) with a message naming the op") {
  Generator gen(1);
  Tensor x = Tensor::full({3}, 1);
  CHECK_THROWS_WITH_AS(dropout(x, 1, gen), doctest::Contains("dropout: the drop probability p must be in [0, 1)"),
                       Error);
  CHECK_THROWS_WITH_AS(dropout(x, real(-0.1), gen), doctest::Contains("dropout:"), Error);
  CHECK_THROWS_WITH_AS(dropout(x, std::nan(""), gen), doctest::Contains("dropout:"), Error);
}

// ---- embedding ----

TEST_CASE("embedding picks the row of each id, giving ids.shape + [d]") {
  Tensor weight = Tensor::from_values({3, 2}, {0, 1, 10, 11, 20, 21});  // [V=3, d=2], row v = [10v, 10v+1]
  Tensor y = embedding(weight, TokenIds{{2, 2}, {2, 0, 1, 2}});        // [2, 2, 2]
  CHECK(y.shape() == Shape{2, 2, 2});
  CHECK(y.values() == std::vector<real>{20, 21, 0, 1, 10, 11, 20, 21});
}

TEST_CASE("embedding's gradient adds up in the row of an id used twice and leaves unused rows at zero") {
  Tensor weight = Tensor::zeros({3, 2}, true);
  Tensor y = embedding(weight, TokenIds{{3}, {2, 0, 2}});               // [3, 2]
  sum(mul(y, Tensor::from_values({3, 2}, {1, 2, 3, 4, 5, 6}))).backward();
  // row 0 gets position 1's [3, 4]; row 1 nothing; row 2 positions 0 and 2: [1 + 5, 2 + 6]
  CHECK(weight.grad_values() == std::vector<real>{3, 4, 0, 0, 6, 8});
}

TEST_CASE("an id outside the vocabulary is an error naming the id, its position and V") {
  Tensor weight = Tensor::zeros({4, 2});
  CHECK_THROWS_WITH_AS(embedding(weight, TokenIds{{2, 3}, {0, 1, 2, 3, 7, 0}}),
                       "embedding: id 7 at position [1, 1] of the ids [2, 3] is outside the vocabulary [0, 4) of "
                       "the table [4, 2]",
                       Error);
  CHECK_THROWS_WITH_AS(embedding(weight, TokenIds{{2}, {-1, 0}}), doctest::Contains("embedding: id -1"), Error);
}

TEST_CASE("embedding refuses a table that is not a matrix and ids with too many axes") {
  CHECK_THROWS_WITH_AS(embedding(Tensor::zeros({4}), TokenIds{{1}, {0}}), doctest::Contains("embedding:"), Error);
  CHECK_THROWS_WITH_AS(embedding(Tensor::zeros({4, 2}), TokenIds{{1, 1, 1, 1}, {0}}),
                       doctest::Contains("embedding: ids must have 1 to 3 axes"), Error);
}

// ---- reductions ----

TEST_CASE("sum and mean along an axis drop it, or keep it as size 1; a rank-1 input gives [1]") {
  Tensor x = Tensor::from_values({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(sum(x, 0).shape() == Shape{3});
  CHECK(sum(x, 0).values() == std::vector<real>{5, 7, 9});
  CHECK(sum(x, 0, /*keepdim=*/true).shape() == Shape{1, 3});
  CHECK(sum(x, -1).values() == std::vector<real>{6, 15});
  CHECK(mean(x, 1, true).shape() == Shape{2, 1});
  CHECK(mean(x, 1, true).values() == std::vector<real>{2, 5});
  CHECK(sum(Tensor::from_values({3}, {1, 2, 3}), 0).shape() == Shape{1});
  CHECK(sum(Tensor::from_values({3}, {1, 2, 3}), 0).item() == 6);
  CHECK_THROWS_WITH_AS(sum(x, 2), "axis 2 is out of range for a tensor of shape [2, 3]", Error);
}

TEST_CASE("sum along a middle axis of a [2, 3, 2] tensor adds the three rows of each block") {
  std::vector<real> values(12);
  for (int i = 0; i < 12; ++i) values[i] = static_cast<real>(i);
  Tensor y = sum(Tensor::from_values({2, 3, 2}, values), 1);            // [2, 2]
  CHECK(y.values() == std::vector<real>{0 + 2 + 4, 1 + 3 + 5, 6 + 8 + 10, 7 + 9 + 11});
}

TEST_CASE("cumsum of [1, 2, 3] is [1, 3, 6], and its gradient is the reverse running sum") {
  Tensor x = Tensor::from_values({3}, {1, 2, 3}, true);
  Tensor y = cumsum(x, 0);
  CHECK(y.values() == std::vector<real>{1, 3, 6});
  sum(y).backward();                                                    // x_0 is in 3 outputs, x_2 in 1
  CHECK(x.grad_values() == std::vector<real>{3, 2, 1});
  Tensor m = Tensor::from_values({2, 2}, {1, 2, 3, 4});
  CHECK(cumsum(m, 0).values() == std::vector<real>{1, 2, 4, 6});        // down the columns
  CHECK(cumsum(m, -1).values() == std::vector<real>{1, 3, 3, 7});       // along the rows
}

TEST_CASE("divide_by_sum makes every slice along the axis sum to 1") {
  Generator gen(11);
  Tensor x = Tensor::uniform({3, 5}, gen, real(0.5), 2);
  Tensor rows = divide_by_sum(x, -1);                                   // [3, 5]
  for (int64_t r = 0; r < 3; ++r) CHECK(rows.matrix().row(r).sum() == doctest::Approx(1));
  Tensor columns = divide_by_sum(x, 0);
  for (int64_t c = 0; c < 5; ++c) CHECK(columns.matrix().col(c).sum() == doctest::Approx(1));
  // eps enlarges the denominator: [1, 3] / (4 + 1)
  Tensor with_eps = divide_by_sum(Tensor::from_values({2}, {1, 3}), 0, 1);
  CHECK(with_eps.values()[0] == doctest::Approx(0.2));
  CHECK(with_eps.values()[1] == doctest::Approx(0.6));
}

// ---- cross_entropy ----

TEST_CASE("cross_entropy of uniform logits is log V, whatever the targets") {
  Tensor logits = Tensor::full({2, 3, 7}, real(0.5));                   // p_c = 1/7 everywhere
  TokenIds targets{{2, 3}, {0, 1, 2, 3, 4, 6}};
  CHECK(cross_entropy(logits, targets).item() == doctest::Approx(std::log(7.0)));
  // With smoothing too: -log p_c = log 7 for every c, and q sums to 1, so H(q, p) = log 7.
  CHECK(cross_entropy(logits, targets, real(0.1)).item() == doctest::Approx(std::log(7.0)));
}

TEST_CASE("cross_entropy matches a hand computation with label smoothing and an ignored position") {
  // V = 3, ε = 0.1, ignore_id = -1; row 2 is padding.
  Tensor logits = Tensor::from_values({3, 3}, {1, 2, 3,      // target 2
                                               2, 0, -1,     // target 0
                                               5, 5, 5},     // ignored
                                      true);
  TokenIds targets{{3}, {2, 0, -1}};
  // row 0: lse = log(e¹ + e² + e³) = 3.4076060;  -log p_2 = lse - 3 = 0.4076060
  //        (1/V) Σ_c -log p_c = lse - mean(z) = lse - 2 = 1.4076060
  //        loss_0 = 0.9 · 0.4076060 + 0.1 · 1.4076060 = 0.5076060
  // row 1: lse = log(e² + e⁰ + e⁻¹) = 2.1698460;  -log p_0 = lse - 2 = 0.1698460
  //        lse - mean(z) = lse - 1/3 = 1.8365127;  loss_1 = 0.9 · 0.1698460 + 0.1 · 1.8365127 = 0.3365127
  // mean over the N = 2 kept rows: (0.5076060 + 0.3365127) / 2 = 0.4220593
  Tensor loss = cross_entropy(logits, targets, real(0.1), -1);
  CHECK(loss.item() == doctest::Approx(0.4220593).epsilon(1e-5));

  // ∂loss/∂z_c = (p_c - q_c) / N with q = ε/V + (1 - ε)·onehot:
  // row 0: p = [0.0900306, 0.2447285, 0.6652410], q = [0.0333333, 0.0333333, 0.9333333]
  // row 1: p = [0.8437947, 0.1141952, 0.0420101], q = [0.9333333, 0.0333333, 0.0333333]
  loss.backward();
  const std::vector<double> expected{0.0283486, 0.1056976, -0.1340462,
                                     -0.0447693, 0.0404309, 0.0043384,
                                     0, 0, 0};                          // the ignored row passes nothing
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("logit ", i);
    CHECK(logits.grad_values()[i] == doctest::Approx(expected[i]).epsilon(1e-4));
  }
}

TEST_CASE("cross_entropy with every position ignored is 0 and passes a zero gradient") {
  Tensor logits = Tensor::from_values({2, 2}, {1, 2, 3, 4}, true);
  Tensor loss = cross_entropy(logits, TokenIds{{2}, {0, 0}}, 0, /*ignore_id=*/0);
  CHECK(loss.item() == 0);
  loss.backward();
  CHECK(logits.grad_values() == std::vector<real>{0, 0, 0, 0});
}

TEST_CASE("cross_entropy is stable for huge logits (log-sum-exp subtracts the max)") {
  Tensor logits = Tensor::from_values({1, 2}, {1000, 0});
  CHECK(cross_entropy(logits, TokenIds{{1}, {0}}).item() == doctest::Approx(0));
  CHECK(cross_entropy(logits, TokenIds{{1}, {1}}).item() == doctest::Approx(1000));
}

TEST_CASE("cross_entropy refuses bad shapes, targets and smoothing with a message naming the op") {
  Tensor logits = Tensor::zeros({2, 3, 5});
  CHECK_THROWS_WITH_AS(cross_entropy(logits, TokenIds{{3, 2}, {0, 0, 0, 0, 0, 0}}),
                       "cross_entropy: targets must have the logits' shape without its last axis, [2, 3] for logits "
                       "[2, 3, 5], but have shape [3, 2]",
                       Error);
  CHECK_THROWS_WITH_AS(cross_entropy(logits, TokenIds{{2, 3}, {0, 1, 2, 3, 4, 5}}),
                       "cross_entropy: target 5 at position [1, 2] is outside the vocabulary [0, 5) of the logits "
                       "[2, 3, 5] (and is not ignore_id = -1)",
                       Error);
  CHECK_THROWS_WITH_AS(cross_entropy(logits, TokenIds{{2, 3}, {0, -2, 0, 0, 0, 0}}),
                       doctest::Contains("cross_entropy: target -2 at position [0, 1]"), Error);
  TokenIds fine{{2, 3}, {0, 1, 2, 3, 4, 0}};
  CHECK_THROWS_WITH_AS(cross_entropy(logits, fine, 1), doctest::Contains("cross_entropy: label_smoothing"), Error);
  CHECK_THROWS_WITH_AS(cross_entropy(logits, fine, real(-0.1)), doctest::Contains("cross_entropy:"), Error);
  CHECK_THROWS_WITH_AS(cross_entropy(Tensor::zeros({5}), TokenIds{{1}, {0}}), doctest::Contains("cross_entropy:"),
                       Error);
}
