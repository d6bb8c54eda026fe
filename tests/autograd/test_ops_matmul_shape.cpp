// test_ops_matmul_shape.cpp — facts about matmul and the shape ops (reshape, permute, transpose, slice, concat):
// their values on small examples worked by hand, the identities that tie them together, and their error messages.
// (Their gradients are checked against finite differences in float64: tests/f64_gradcheck.cpp.)
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <string>

#include "autograd/ops.h"
#include "kernels/kernels.h"
#include "tensor/product/product.h"
#include "util/error.h"

using namespace attnlab;

namespace {

// 0, 1, 2, … laid out in the given shape, so that every number says where it came from.
Tensor counting(const Shape& shape) {
  std::vector<real> values(static_cast<size_t>(shape.numel()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<real>(i);
  return Tensor::from_values(shape, values);
}

// Same shape, and the same numbers up to float rounding.
void check_same(const Tensor& actual, const Tensor& expected) {
  REQUIRE(actual.shape() == expected.shape());
  for (int64_t i = 0; i < actual.numel(); ++i) {
    CHECK(actual.data()[i] == doctest::Approx(expected.data()[i]).epsilon(1e-5));
  }
}

// The b-th entry along axis 0, without that axis: x [B, n, k] → [n, k].
Tensor entry(const Tensor& x, int64_t b) {
  Tensor one = slice(x, 0, b, b + 1);                                   // [1, n, k]
  std::vector<int64_t> sizes = one.shape().sizes();
  sizes.erase(sizes.begin());
  return reshape(one, Shape(sizes));                                    // [n, k]
}

}  // namespace

// ---- matmul ----

TEST_CASE("matmul multiplies a [2, 3] by a [3, 2] as on paper") {
  Tensor A = Tensor::from_values({2, 3}, {1, 2, 3,
                                          4, 5, 6});
  Tensor B = Tensor::from_values({3, 2}, {7, 8,
                                          9, 10,
                                          11, 12});
  Tensor C = matmul(A, B);                                              // [2, 2]
  CHECK(C.shape() == Shape{2, 2});
  // C[0, 0] = 1·7 + 2·9 + 3·11 = 58, C[0, 1] = 1·8 + 2·10 + 3·12 = 64, and so on.
  CHECK(C.values() == std::vector<real>{58, 64, 139, 154});
  // A · Aᵀ holds the dot products of A's rows: 1+4+9 = 14, 4+10+18 = 32, 16+25+36 = 77.
  CHECK(matmul(A, A, false, true).values() == std::vector<real>{14, 32, 32, 77});
  // Aᵀ · A is [3, 3]; its corner is 1·1 + 4·4 = 17.
  CHECK(matmul(A, A, true, false).at({0, 0}) == 17);
}

TEST_CASE("the transpose flags give the same product as transposing explicitly") {
  Generator gen(7);
  Tensor A = Tensor::randn({3, 4}, gen), At = transpose(A, 0, 1);     // [3, 4], [4, 3]
  Tensor B = Tensor::randn({4, 5}, gen), Bt = transpose(B, 0, 1);     // [4, 5], [5, 4]
  Tensor expected = matmul(A, B);                                       // [3, 5]
  check_same(matmul(At, B, true, false), expected);
  check_same(matmul(A, Bt, false, true), expected);
  check_same(matmul(At, Bt, true, true), expected);
}

TEST_CASE("a batched matmul is one matrix product per batch entry") {
  Generator gen(11);
  Tensor A = Tensor::randn({2, 3, 4}, gen);                             // [B, n, k]
  Tensor B = Tensor::randn({2, 4, 5}, gen);                             // [B, k, m]
  Tensor C = matmul(A, B);                                              // [B, n, m]
  CHECK(C.shape() == Shape{2, 3, 5});
  for (int64_t b = 0; b < 2; ++b) check_same(entry(C, b), matmul(entry(A, b), entry(B, b)));

  // 4-D, as in attention: scores = Q · Kᵀ per batch entry and head.
  Tensor Q = Tensor::randn({2, 2, 3, 4}, gen);                          // [B, h, T, d_k]
  Tensor K = Tensor::randn({2, 2, 5, 4}, gen);                          // [B, h, S, d_k]
  Tensor scores = matmul(Q, K, false, true);                            // [B, h, T, S]
  CHECK(scores.shape() == Shape{2, 2, 3, 5});
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t h = 0; h < 2; ++h) {
      check_same(entry(entry(scores, b), h), matmul(entry(entry(Q, b), h), entry(entry(K, b), h), false, true));
    }
  }
}

TEST_CASE("a rank-2 B is shared by every batch entry of A, as in a Linear layer y = x · Wᵀ") {
  Generator gen(13);
  Tensor x = Tensor::randn({2, 3, 4}, gen);                             // [B, T, d_in]
  Tensor W = Tensor::randn({5, 4}, gen);                                // [d_out, d_in]
  Tensor y = matmul(x, W, false, true);                                 // [B, T, d_out]
  CHECK(y.shape() == Shape{2, 3, 5});
  for (int64_t b = 0; b < 2; ++b) check_same(entry(y, b), matmul(entry(x, b), W, false, true));

  // With A transposed each batch entry is its own product Aᵀ_b · B.
  Tensor At = Tensor::randn({2, 4, 3}, gen);                            // [B, k, n]
  Tensor Bs = Tensor::randn({4, 2}, gen);                               // [k, m]
  Tensor C = matmul(At, Bs, true, false);                               // [B, n, m]
  CHECK(C.shape() == Shape{2, 3, 2});
  for (int64_t b = 0; b < 2; ++b) check_same(entry(C, b), matmul(entry(At, b), Bs, true, false));
}

TEST_CASE("the gradient of a shared weight matrix sums over every batch entry") {
  Generator gen(17);
  Tensor x = Tensor::full({2, 3, 4}, 1, /*requires_grad=*/true);        // [B, T, d_in], all ones
  Tensor W = Tensor::randn({4, 5}, gen, 1, /*requires_grad=*/true);     // [d_in, d_out]
  sum(matmul(x, W)).backward();
  // loss = Σ_{b,t,j} Σ_i x[b,t,i] W[i,j], so ∂loss/∂W[i,j] = Σ_{b,t} x[b,t,i] = 2·3 = 6 ...
  for (real g : W.grad_values()) CHECK(g == doctest::Approx(6));
  // ... and ∂loss/∂x[b,t,i] = Σ_j W[i,j], the same for every (b, t).
  for (int64_t i = 0; i < 4; ++i) {
    real row_sum = 0;
    for (int64_t j = 0; j < 5; ++j) row_sum += W.at({i, j});
    CHECK(x.grad_values()[static_cast<size_t>(12 + i)] == doctest::Approx(row_sum));  // x[1, 0, i]
  }
}

TEST_CASE("matmul sends a gradient only to the inputs that ask for one") {
  Generator gen(19);
  Tensor A = Tensor::randn({2, 3}, gen, 1, /*requires_grad=*/true);
  Tensor B = Tensor::randn({3, 2}, gen);                                // a constant
  sum(matmul(A, B)).backward();
  CHECK(A.has_grad());
  CHECK_FALSE(B.has_grad());
}

// ---- reshape, permute, transpose ----

TEST_CASE("reshape keeps the numbers in row-major order and only changes the shape") {
  Tensor x = counting({2, 3});
  Tensor y = reshape(x, {3, 2});
  CHECK(y.shape() == Shape{3, 2});
  CHECK(y.values() == x.values());
  CHECK(y.at({2, 1}) == 5);
  CHECK(reshape(x, {6}).at({4}) == 4);
}

TEST_CASE("splitting d_model into heads and merging them back is the identity") {
  const int64_t B = 2, T = 3, heads = 2, d_k = 2;
  Tensor x = counting({B, T, heads * d_k});                             // [B, T, d_model]
  Tensor split = permute(reshape(x, {B, T, heads, d_k}), {0, 2, 1, 3}); // [B, h, T, d_k]
  CHECK(split.shape() == Shape{B, heads, T, d_k});
  // Head j at position t holds features j·d_k … j·d_k + d_k - 1 of x at t.
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < heads; ++j)
      for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < d_k; ++c) CHECK(split.at({b, j, t, c}) == x.at({b, t, j * d_k + c}));
  Tensor merged = reshape(permute(split, {0, 2, 1, 3}), {B, T, heads * d_k});  // [B, T, d_model]
  CHECK(merged.shape() == x.shape());
  CHECK(merged.values() == x.values());
}

TEST_CASE("permute moves element (i, j, k) to its permuted index, and the inverse permutation undoes it") {
  Tensor x = counting({2, 3, 4});
  Tensor y = permute(x, {1, 2, 0});                                     // [3, 4, 2]: y[j, k, i] = x[i, j, k]
  CHECK(y.shape() == Shape{3, 4, 2});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) CHECK(y.at({j, k, i}) == x.at({i, j, k}));
  CHECK(permute(y, {2, 0, 1}).values() == x.values());                  // p⁻¹ of {1, 2, 0} is {2, 0, 1}
  CHECK(permute(x, {-1, 0, 1}).values() == permute(x, {2, 0, 1}).values());  // negative axes count from the end
}

TEST_CASE("transpose swaps two axes: on a matrix it is the matrix transpose") {
  Tensor x = Tensor::from_values({2, 3}, {1, 2, 3,
                                          4, 5, 6});
  Tensor xt = transpose(x, 0, 1);
  CHECK(xt.shape() == Shape{3, 2});
  CHECK(xt.values() == std::vector<real>{1, 4, 2, 5, 3, 6});
  Tensor x3 = counting({2, 3, 4});
  CHECK(transpose(x3, -1, -2).values() == permute(x3, {0, 2, 1}).values());
  CHECK(std::string(transpose(x3, 0, 2).op()) == "transpose");          // it is recorded under its own name
}

// ---- slice, concat ----

TEST_CASE("slice takes the window [start, end) along one axis") {
  Tensor x = counting({2, 3, 4});
  Tensor middle = slice(x, 1, 1, 3);                                    // x[:, 1:3, :]
  CHECK(middle.shape() == Shape{2, 2, 4});
  CHECK(middle.values() == std::vector<real>{4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23});
  Tensor last = slice(x, -1, 2, 4);                                     // x[..., 2:4]
  CHECK(last.shape() == Shape{2, 3, 2});
  CHECK(last.values() == std::vector<real>{2, 3, 6, 7, 10, 11, 14, 15, 18, 19, 22, 23});
  CHECK(slice(x, 0, 1, 2).values() == reshape(slice(x, 0, 1, 2), {12}).values());
  CHECK(slice(x, 0, 1, 2).at({0, 0, 0}) == 12);
}

TEST_CASE("concat joins tensors along an axis, in order") {
  Tensor a = Tensor::from_values({2, 1}, {1,
                                          2});
  Tensor b = Tensor::from_values({2, 2}, {3, 4,
                                          5, 6});
  Tensor y = concat({a, b}, 1);
  CHECK(y.shape() == Shape{2, 3});
  CHECK(y.values() == std::vector<real>{1, 3, 4,
                                        2, 5, 6});
  Tensor rows = concat({b, transpose(a, 0, 1)}, 0);                     // [2, 2] on top of [1, 2]
  CHECK(rows.values() == std::vector<real>{3, 4, 5, 6, 1, 2});
}

TEST_CASE("cutting a tensor into slices and concatenating them gives it back") {
  Tensor x = counting({2, 5, 3});
  CHECK(concat({slice(x, 1, 0, 2), slice(x, 1, 2, 3), slice(x, 1, 3, 5)}, 1).values() == x.values());
  CHECK(concat({slice(x, 0, 0, 1), slice(x, 0, 1, 2)}, 0).values() == x.values());
  CHECK(concat({slice(x, -1, 0, 1), slice(x, -1, 1, 3)}, -1).values() == x.values());
}

TEST_CASE("concat's backward hands each input its own part of the gradient") {
  Tensor a = Tensor::zeros({2, 1}, /*requires_grad=*/true);
  Tensor b = Tensor::zeros({2, 2}, /*requires_grad=*/true);
  Tensor weights = Tensor::from_values({2, 3}, {1, 2, 3,
                                                4, 5, 6});
  sum(mul(concat({a, b}, 1), weights)).backward();                      // ∂loss/∂y = weights
  CHECK(a.grad_values() == std::vector<real>{1, 4});
  CHECK(b.grad_values() == std::vector<real>{2, 3, 5, 6});
}

// ---- errors: each names the op and the shapes ----

TEST_CASE("matmul refuses shapes that do not fit, naming both shapes and the sizes that disagree") {
  CHECK_THROWS_WITH_AS(matmul(Tensor::zeros({2, 3}), Tensor::zeros({4, 2})),
                       "matmul: shapes [2, 3] and [4, 2] do not fit: in A·B the inner sizes must agree, "
                       "but A has 3 columns and B has 4 rows",
                       Error);
  CHECK_THROWS_WITH_AS(matmul(Tensor::zeros({2, 3}), Tensor::zeros({2, 4}), false, true),
                       "matmul: shapes [2, 3] and [2, 4] do not fit: in A·Bᵀ the inner sizes must agree, "
                       "but A has 3 columns and Bᵀ has 4 rows",
                       Error);
  CHECK_THROWS_WITH_AS(matmul(Tensor::zeros({2, 3, 4}), Tensor::zeros({3, 4, 5})),
                       "matmul: shapes [2, 3, 4] and [3, 4, 5] do not fit: the batch axes [2] and [3] differ "
                       "(B must have A's batch axes, or be a matrix shared by every batch entry)",
                       Error);
  CHECK_THROWS_WITH_AS(matmul(Tensor::zeros({3}), Tensor::zeros({3, 2})),
                       "matmul: shapes [3] and [3, 2] do not fit: both need at least 2 axes "
                       "(a matrix, or a batch of matrices)",
                       Error);
  CHECK_THROWS_WITH_AS(matmul(Tensor::zeros({3, 4}), Tensor::zeros({2, 4, 5})),
                       doctest::Contains("matmul: shapes [3, 4] and [2, 4, 5] do not fit: the batch axes"), Error);
}

TEST_CASE("reshape refuses a shape that holds a different number of numbers") {
  CHECK_THROWS_WITH_AS(reshape(Tensor::zeros({2, 3}), {4, 2}),
                       "reshape: cannot reshape a tensor of shape [2, 3] into [4, 2]: they hold 6 and 8 numbers",
                       Error);
}

TEST_CASE("permute and transpose refuse anything but a permutation of the tensor's axes") {
  Tensor x = Tensor::zeros({2, 3, 4});
  CHECK_THROWS_WITH_AS(permute(x, {0, 1, 1}),
                       "permute: {0, 1, 1} is not a permutation of the axes of a tensor of shape [2, 3, 4]: "
                       "axis 1 appears twice",
                       Error);
  CHECK_THROWS_WITH_AS(permute(x, {0, 2, -1}), doctest::Contains("axis 2 appears twice"), Error);
  CHECK_THROWS_WITH_AS(permute(x, {1, 0}),
                       "permute: {1, 0} lists 2 axes, but a tensor of shape [2, 3, 4] has 3 "
                       "(a permutation names every axis exactly once)",
                       Error);
  CHECK_THROWS_WITH_AS(permute(x, {0, 1, 3}),
                       "permute: axis 3 is out of range for a tensor of shape [2, 3, 4] "
                       "(its axes are 0 to 2, or -3 to -1 counting from the end)",
                       Error);
  CHECK_THROWS_WITH_AS(transpose(x, 0, -4),
                       "transpose: axis -4 is out of range for a tensor of shape [2, 3, 4] "
                       "(its axes are 0 to 2, or -3 to -1 counting from the end)",
                       Error);
}

TEST_CASE("slice refuses a window outside the axis, or an axis the tensor does not have") {
  Tensor x = Tensor::zeros({2, 3});
  CHECK_THROWS_WITH_AS(slice(x, 1, 1, 5),
                       "slice: [1, 5) does not fit axis 1 of a tensor of shape [2, 3] (need 0 ≤ start ≤ end ≤ 3)",
                       Error);
  CHECK_THROWS_WITH_AS(slice(x, -2, 2, 1),
                       "slice: [2, 1) does not fit axis -2 of a tensor of shape [2, 3] (need 0 ≤ start ≤ end ≤ 2)",
                       Error);
  CHECK_THROWS_WITH_AS(slice(x, 0, -1, 1), doctest::Contains("slice: [-1, 1) does not fit"), Error);
  CHECK_THROWS_WITH_AS(slice(x, 2, 0, 1), doctest::Contains("slice: axis 2 is out of range for a tensor of shape [2, 3]"),
                       Error);
}

TEST_CASE("concat refuses an empty list and tensors whose other sizes differ, naming the offending shapes") {
  CHECK_THROWS_WITH_AS(concat({}, 0), "concat: needs at least one tensor to join, but the list is empty", Error);
  Tensor a = Tensor::zeros({2, 2}), b = Tensor::zeros({3, 2}), c = Tensor::zeros({2, 2, 1});
  CHECK_THROWS_WITH_AS(concat({a, b}, 1),
                       "concat: along axis 1, tensor 1 of shape [3, 2] does not fit tensor 0 of shape [2, 2] "
                       "(they need the same rank and the same sizes on every other axis)",
                       Error);
  CHECK_THROWS_WITH_AS(concat({a, a, c}, 0),
                       doctest::Contains("tensor 2 of shape [2, 2, 1] does not fit tensor 0 of shape [2, 2]"), Error);
  CHECK_NOTHROW(concat({a, b}, 0));                                     // along axis 0 the sizes may differ
}

TEST_CASE("matmul is deterministic: the same product gives the same bits wherever its numbers sit in memory") {
  // Eigen's vectorised kernels choose their path by alignment; matmul computes in aligned scratch so that the
  // result cannot depend on it. A batch of 16 copies of the same operands with an odd block size puts each copy
  // at a different offset within a 64-byte line; every batch entry must come out bit-identical.
  Generator gen(3);
  for (int64_t rows : {1, 3, 17}) {
    const int64_t k = 37, m = 29, copies = 16;
    Tensor a_one = Tensor::randn({1, rows, k}, gen), b_one = Tensor::randn({1, k, m}, gen);
    std::vector<Tensor> as(copies, a_one), bs(copies, b_one);
    Tensor c = matmul(concat(as, 0), concat(bs, 0));                 // [16, rows, m]
    for (int64_t i = 1; i < copies; ++i) {
      for (int64_t j = 0; j < rows * m; ++j) {
        INFO("rows ", rows, ", copy ", i, ", element ", j);
        REQUIRE(c.data()[i * rows * m + j] == c.data()[j]);
      }
    }
  }
}

// 16 copies of one product op(A)·op(B) ([n, k] · [k, m]) stacked in a batch, so that each copy sits at a different
// offset within a 64-byte line: every copy must give exactly the first copy's bits, forward and backward, and the
// first must agree with the definition Σ_p op(A)[r, p] · op(B)[p, col] to float rounding (summing in another
// order rounds differently, so not to the bit).
static void check_copies_agree_and_match_definition(Generator& gen, int64_t n, int64_t k, int64_t m,
                                                    bool transpose_a, bool transpose_b) {
  INFO("n ", n, ", k ", k, ", m ", m, ", transpose_a ", transpose_a, ", transpose_b ", transpose_b);
  const int64_t copies = 16;
  Tensor a_one = transpose_a ? Tensor::randn({1, k, n}, gen) : Tensor::randn({1, n, k}, gen);
  Tensor b_one = transpose_b ? Tensor::randn({1, m, k}, gen) : Tensor::randn({1, k, m}, gen);
  std::vector<Tensor> as(copies, a_one), bs(copies, b_one);
  Tensor a = concat(as, 0).detach().set_requires_grad(true);          // [16, n, k] or [16, k, n]
  Tensor b = concat(bs, 0).detach().set_requires_grad(true);          // [16, k, m] or [16, m, k]
  Tensor c = matmul(a, b, transpose_a, transpose_b);                   // [16, n, m]
  sum(mul(c, c)).backward();
  for (int64_t i = 1; i < copies; ++i) {
    for (int64_t j = 0; j < n * m; ++j) REQUIRE(c.data()[i * n * m + j] == c.data()[j]);
    for (int64_t j = 0; j < n * k; ++j) REQUIRE(a.grad()[i * n * k + j] == a.grad()[j]);
    for (int64_t j = 0; j < k * m; ++j) REQUIRE(b.grad()[i * k * m + j] == b.grad()[j]);
  }
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t col = 0; col < m; ++col) {
      double expected = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double x = a_one.data()[transpose_a ? p * n + r : r * k + p];
        const double y = b_one.data()[transpose_b ? col * k + p : p * m + col];
        expected += x * y;
      }
      REQUIRE(std::abs(double(c.data()[r * m + col]) - expected) < 1e-4 * (1 + std::abs(expected)));
    }
  }
}

TEST_CASE("large products of the matmul op (Eigen's GEMM, no scratch copies) give the same bits at every offset, "
          "and match the definition") {
  // Products with every size ≥ 16 are added straight into the output (tensor/product/product.h). The packed GEMM the
  // fused kernels use is held to the same below (check_shared_products, offsets 0 and 3).
  Generator gen(5);
  for (bool transpose_a : {false, true}) {
    for (bool transpose_b : {false, true}) check_copies_agree_and_match_definition(gen, 33, 40, 19, transpose_a, transpose_b);
  }
}

// The body of the next test, for one GEMM: every case at 1, 2 and 3 threads and two offsets.
static void check_shared_products(Generator& gen, Gemm gemm) {
  struct Case { int64_t n, k, m; };
  for (Case size : {Case{300, 250, 64}, Case{48, 250, 400}, Case{64, 2100, 40}, Case{4, 128, 600}}) {
    for (bool transpose_x : {false, true}) {
      for (bool transpose_y : {false, true}) {
        const int64_t n = size.n, k = size.k, m = size.m;
        INFO("n ", n, ", k ", k, ", m ", m, ", transpose_x ", transpose_x, ", transpose_y ", transpose_y);
        Tensor x = Tensor::randn({n * k}, gen);                         // op(X) [n, k]
        Tensor y = Tensor::randn({k * m}, gen);                         // op(Y) [k, m]
        const int64_t x_rows = transpose_x ? k : n, y_rows = transpose_y ? m : k;
        std::vector<real> first;                                        // the bits at offset 0, per thread count
        for (int threads : {1, 2, 3}) {
          omp_set_num_threads(threads);
          for (int64_t offset : {0, 3}) {
            std::vector<real> c(static_cast<size_t>(n * m + offset), real(1));  // C = 1 everywhere, then += the product
            std::vector<real> xs(static_cast<size_t>(offset), real(0)), ys = xs;  // X and Y copied after `offset` numbers
            xs.insert(xs.end(), x.data(), x.data() + n * k);
            ys.insert(ys.end(), y.data(), y.data() + k * m);
            add_product(MatrixMap(c.data() + offset, n, m),
                        ConstMatrixMap(xs.data() + offset, x_rows, n * k / x_rows), transpose_x,
                        ConstMatrixMap(ys.data() + offset, y_rows, k * m / y_rows), transpose_y, gemm);
            std::vector<real> result(c.begin() + offset, c.end());
            if (offset == 0) first = result;
            INFO("threads ", threads);
            REQUIRE(result == first);                                   // the same bits at every offset
            for (int64_t r = 0; r < n; ++r) {
              for (int64_t col = 0; col < m; ++col) {
                double expected = 1;
                for (int64_t p = 0; p < k; ++p) {
                  const double a = x.data()[(transpose_x ? p * n + r : r * k + p)];
                  const double b = y.data()[(transpose_y ? col * k + p : p * m + col)];
                  expected += a * b;
                }
                REQUIRE(std::abs(double(result[static_cast<size_t>(r * m + col)]) - expected) <
                        1e-4 * (1 + std::abs(expected)));
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("products shared among the threads (bands of rows, of columns or of the depth) match the definition "
          "for every transpose, on any thread count, and their bits do not depend on the offset") {
  // add_product cuts a product with enough work (n·k·m ≥ 2^22) into one band per thread; the wider side of C is
  // cut: rows for [300, 64], columns for [48, 400] — unless the depth k is at least as long (a weight's gradient,
  // k = 2100 for C [64, 40]): then k is cut, and the threads' partial products are added. A thin product (fewer
  // than 16 rows) with n·k·m ≥ 100 K shares C's columns instead: [4, 600] with k = 128, as beam search's output
  // layer. Called directly (matmul's batch loop may itself be shared among the threads, and a product inside it
  // is not cut again). Every GEMM the build has (tensor/product/product.h: eigen, packed, blas).
  Generator gen(11);
  const int threads_before = omp_get_max_threads();
  for (Gemm gemm : built_gemms()) {
    INFO("GEMM ", name_of(gemm));
    check_shared_products(gen, gemm);
  }
  omp_set_num_threads(threads_before);
}

TEST_CASE("thin products (a few rows, as in decoding) match the definition for every transpose, and their bits "
          "do not depend on the offset") {
  // Fewer than 16 rows times a large matrix take matmul's own loop (no copy of the big operand).
  Generator gen(7);
  for (int64_t n : {1, 4, 15}) {
    for (bool transpose_a : {false, true}) {
      for (bool transpose_b : {false, true}) {
        check_copies_agree_and_match_definition(gen, n, 45, 38, transpose_a, transpose_b);
      }
    }
  }
}

TEST_CASE("linear(x, W, b) gives matmul(x, W, false, true) + b and the same gradients, to float rounding, on "
          "every product route") {
  // The Linear layer's fused op against its reference, the two ops it replaces, for a thin product (2 rows, as
  // in decoding), a small one (the scratch route) and a large one (Eigen's GEMM), with and without a bias.
  Generator gen(11);
  for (Shape x_shape : {Shape{2, 40}, Shape{3, 5}, Shape{2, 16, 40}}) {
    for (bool with_bias : {true, false}) {
      INFO("x ", x_shape.str(), ", bias ", with_bias);
      const int64_t in = x_shape[-1], out = 24;
      Tensor x = Tensor::randn(x_shape, gen).set_requires_grad(true);
      Tensor w = Tensor::randn({out, in}, gen).set_requires_grad(true);
      Tensor b = with_bias ? Tensor::randn({out}, gen).set_requires_grad(true) : Tensor();
      Tensor x2 = x.detach().set_requires_grad(true), w2 = w.detach().set_requires_grad(true);
      Tensor b2 = with_bias ? b.detach().set_requires_grad(true) : Tensor();
      Tensor y = linear(x, w, b);                                          // [..., out]
      Tensor reference = matmul(x2, w2, false, true);
      if (with_bias) reference = add(reference, b2);
      REQUIRE(y.shape() == reference.shape());
      for (int64_t i = 0; i < y.numel(); ++i) REQUIRE(y.data()[i] == doctest::Approx(reference.data()[i]).epsilon(1e-5));
      Tensor weights = Tensor::randn(y.shape(), gen);                      // a loss whose gradient is not uniform
      sum(mul(y, weights)).backward();
      sum(mul(reference, weights)).backward();
      for (int64_t i = 0; i < x.numel(); ++i) REQUIRE(x.grad()[i] == doctest::Approx(x2.grad()[i]).epsilon(1e-5));
      for (int64_t i = 0; i < w.numel(); ++i) REQUIRE(w.grad()[i] == doctest::Approx(w2.grad()[i]).epsilon(1e-5));
      if (with_bias) {
        for (int64_t i = 0; i < out; ++i) REQUIRE(b.grad()[i] == doctest::Approx(b2.grad()[i]).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("linear refuses a weight or bias that does not fit x, naming the shapes") {
  Tensor x = Tensor::zeros({2, 3});
  CHECK_THROWS_WITH_AS(linear(x, Tensor::zeros({4, 5}), Tensor()), doctest::Contains("weight [4, 5]"), Error);
  CHECK_THROWS_WITH_AS(linear(x, Tensor::zeros({4, 3}), Tensor::zeros({3})), doctest::Contains("bias [3]"), Error);
}
