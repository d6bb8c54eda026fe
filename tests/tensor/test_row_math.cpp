// test_row_math.cpp — the vectorised row kernels (src/tensor/row_math.h) and the ops built on them agree
// with the slow, obvious scalar loops, and give the same bits wherever a row sits in memory.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "autograd/ops.h"
#include "tensor/row_math.h"

using namespace attnlab;

namespace {

constexpr real minus_infinity = -std::numeric_limits<real>::infinity();

std::vector<real> random_row(int64_t n, Generator& gen, double spread) {
  std::vector<real> row(static_cast<size_t>(n));
  for (real& v : row) v = static_cast<real>(gen.normal(0, spread));
  return row;
}

// The reference: cross-entropy with label smoothing written as the obvious scalar loops, in double.
double reference_cross_entropy(const std::vector<real>& z, int64_t V, const std::vector<int32_t>& targets,
                               double epsilon, std::vector<double>& gradient) {
  const int64_t rows = static_cast<int64_t>(targets.size());
  double total = 0;
  gradient.assign(z.size(), 0);
  for (int64_t r = 0; r < rows; ++r) {
    const real* row = z.data() + r * V;
    double m = row[0], sum_exp = 0, sum_z = 0;
    for (int64_t c = 1; c < V; ++c) m = std::max(m, double(row[c]));
    for (int64_t c = 0; c < V; ++c) {
      sum_exp += std::exp(double(row[c]) - m);
      sum_z += row[c];
    }
    const double lse = m + std::log(sum_exp);
    const int32_t t = targets[static_cast<size_t>(r)];
    total += (1 - epsilon) * (lse - row[t]) + epsilon * (lse - sum_z / double(V));
    for (int64_t c = 0; c < V; ++c) {
      const double q = epsilon / double(V) + (c == t ? 1 - epsilon : 0);
      gradient[static_cast<size_t>(r * V + c)] = (std::exp(double(row[c]) - lse) - q) / double(rows);
    }
  }
  return total / double(rows);
}

}  // namespace

TEST_CASE("exp_shifted computes e^(x - shift) and its sum as std::exp does, to float rounding, for every length") {
  Generator gen(11);
  for (int64_t n : {1, 7, 16, 17, 33, 100, 8000}) {
    std::vector<real> x = random_row(n, gen, 5), y(x.size());
    const real shift = row_max(x.data(), n);
    double expected_max = x[0];
    for (real v : x) expected_max = std::max(expected_max, double(v));
    REQUIRE(shift == real(expected_max));                               // the max is exact
    const real total = exp_shifted(x.data(), shift, n, y.data());
    double expected_total = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double expected = std::exp(double(x[j]) - double(shift));
      expected_total += expected;
      INFO("n ", n, ", j ", j);
      // A few float ulp near 0; the relative error grows with |x − shift| (the range reduction uses ln 2 rounded
      // to float), about 1e-6 at −30, where e^(x − shift) ≈ 1e-13 is nothing next to the row's largest term, 1.
      const double argument = std::abs(double(x[j]) - double(shift));
      REQUIRE(std::abs(double(y[j]) - expected) <= 3e-7 * (1 + argument) * expected + 1e-30);
    }
    // The kernel adds in float, in a few lanes of about n / lanes terms each: the usual bound for a float sum of
    // n positive terms is n · u · total, u = 2⁻²⁴ (how many lanes there are depends on the CPU's vector width).
    CHECK(std::abs(double(total) - expected_total) <= (1e-6 + double(n) * 0x1p-24) * expected_total);
    double sum = 0;
    for (real v : x) sum += v;
    CHECK(std::abs(double(row_sum(x.data(), n)) - sum) <= 1e-5 * (1 + std::abs(sum) + n));
  }
}

TEST_CASE("row_dot is the sum of the products, as the plain loop in double gives it to float rounding") {
  Generator gen(14);
  for (int64_t n : {1, 7, 16, 17, 33, 128, 1000}) {
    std::vector<real> x = random_row(n, gen, 2), y = random_row(n, gen, 2);
    double dot = 0, magnitude = 0;                                      // Σ x·y and Σ |x·y|
    for (int64_t j = 0; j < n; ++j) {
      dot += double(x[j]) * double(y[j]);
      magnitude += std::abs(double(x[j]) * double(y[j]));
    }
    INFO("n ", n);
    // A float sum of n products: within n · u · Σ|x·y|, u = 2⁻²⁴.
    CHECK(std::abs(double(row_dot(x.data(), y.data(), n)) - dot) <= double(n) * 0x1p-24 * magnitude + 1e-30);
  }
}

namespace {

// The obvious loop row_argmax stands in for (row_math.h).
int64_t obvious_argmax(const std::vector<real>& x) {
  int64_t best = 0;
  for (int64_t j = 1; j < static_cast<int64_t>(x.size()); ++j) {
    if (x[static_cast<size_t>(j)] > x[static_cast<size_t>(best)]) best = j;
  }
  return best;
}

}  // namespace

TEST_CASE("row_argmax finds the first maximum, as the obvious loop does: with ties, infinities and NaNs, every length") {
  Generator gen(15);
  const real nan = std::numeric_limits<real>::quiet_NaN();
  int checked = 0, tied = 0;
  for (int64_t n : {1, 2, 15, 16, 17, 31, 32, 33, 47, 100, 257, 8000}) {
    for (int trial = 0; trial < 60; ++trial) {
      // Coarse values (multiples of 0.5 in [−2, 2]) make ties common; then some special numbers on top.
      std::vector<real> x(static_cast<size_t>(n));
      for (real& v : x) v = real(0.5) * static_cast<real>(gen.integer(-4, 5));
      const int specials = trial % 6;                  // 0: none; then more and more
      for (int k = 0; k < specials; ++k) {
        const size_t at = static_cast<size_t>(gen.integer(0, n));
        const int64_t which = gen.integer(0, 4);
        x[at] = which == 0 ? nan : which == 1 ? minus_infinity : which == 2 ? -minus_infinity : real(3);
      }
      if (trial % 10 == 9) x[0] = nan;                 // a NaN first: the obvious loop then keeps index 0
      if (trial % 10 == 8) std::fill(x.begin(), x.end(), minus_infinity);
      const int64_t expected = obvious_argmax(x);
      int64_t equal_maxima = 0;
      for (real v : x) equal_maxima += v == x[static_cast<size_t>(expected)];
      tied += equal_maxima > 1;
      INFO("n ", n, ", trial ", trial);
      REQUIRE(row_argmax(x.data(), n) == expected);
      ++checked;
    }
  }
  CHECK(checked == 12 * 60);
  CHECK(tied * 3 > checked);                           // the ties the test is about did occur (40 % of rows)
}

TEST_CASE("e^(-inf) is exactly 0 in exp_shifted, so a hidden key gets weight exactly 0") {
  std::vector<real> x = {0.5, minus_infinity, 1, minus_infinity, -3, 2, minus_infinity, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                         minus_infinity};
  std::vector<real> y(x.size());
  exp_shifted(x.data(), 2, static_cast<int64_t>(x.size()), y.data());
  for (size_t j = 0; j < x.size(); ++j) {
    if (x[j] == minus_infinity) CHECK(y[j] == 0);
    else CHECK(y[j] > 0);
  }
}

TEST_CASE("the row kernels give the same bits wherever the row sits in memory") {
  Generator gen(12);
  const int64_t n = 45;
  std::vector<real> row = random_row(n, gen, 3);
  std::vector<real> first_y(static_cast<size_t>(n));
  const real first_total = exp_shifted(row.data(), 1, n, first_y.data());
  const real first_sum = row_sum(row.data(), n);
  const real first_dot = row_dot(row.data(), first_y.data(), n);
  for (int64_t offset = 1; offset < 16; ++offset) {                     // every position within a 64-byte line
    std::vector<real> buffer(static_cast<size_t>(n + offset)), y(static_cast<size_t>(n + offset));
    std::copy(row.begin(), row.end(), buffer.begin() + offset);
    INFO("offset ", offset);
    REQUIRE(exp_shifted(buffer.data() + offset, 1, n, y.data() + offset) == first_total);
    REQUIRE(row_sum(buffer.data() + offset, n) == first_sum);
    REQUIRE(row_dot(buffer.data() + offset, y.data() + offset, n) == first_dot);
    for (int64_t j = 0; j < n; ++j) REQUIRE(y[static_cast<size_t>(offset + j)] == first_y[static_cast<size_t>(j)]);
  }
}

TEST_CASE("the fused, vectorised cross_entropy matches the obvious scalar loops: loss and every gradient") {
  Generator gen(13);
  const int64_t rows = 6, V = 203;
  std::vector<real> z = random_row(rows * V, gen, 4);
  std::vector<int32_t> targets = {5, 0, 202, 17, 100, 3};
  Tensor logits = Tensor::from_values({rows, V}, z, /*requires_grad=*/true);
  Tensor loss = cross_entropy(logits, TokenIds{{rows}, targets}, real(0.1));
  loss.backward();
  std::vector<double> expected_gradient;
  const double expected = reference_cross_entropy(z, V, targets, 0.1, expected_gradient);
  CHECK(std::abs(double(loss.item()) - expected) <= 1e-5 * expected);
  for (size_t i = 0; i < z.size(); ++i) {
    INFO("element ", i);
    REQUIRE(std::abs(double(logits.grad()[i]) - expected_gradient[i]) <= 1e-7);
  }
}
