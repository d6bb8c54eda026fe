// test_small_matmul.cpp — the register-tiled products (src/tensor/product/small_matmul.h) that the fused kernels and the
// packed GEMM are made of compute C = X · Y as the obvious triple loop does, read X through any strides, and give
// the same bits whichever tile a number falls in.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "tensor/product/small_matmul.h"
#include "tensor/random.h"

using namespace attnlab;

namespace {

std::vector<real> random_numbers(int64_t count, Generator& gen) {
  std::vector<real> numbers(static_cast<size_t>(count));
  for (real& v : numbers) v = static_cast<real>(gen.normal());
  return numbers;
}

}  // namespace

TEST_CASE("small_matmul equals the triple loop, for row counts and widths that do and do not fill whole tiles") {
  const int64_t P = small_matmul_packet();
  Generator gen(5);
  for (int64_t n : {1, 3, 4, 6, 7, 8, 11, 13, 32}) {
    for (int64_t width : {P, 2 * P, 3 * P, 5 * P}) {
      for (int64_t depth : {1, 5, 32}) {
        CAPTURE(n);
        CAPTURE(width);
        CAPTURE(depth);
        const std::vector<real> X = random_numbers(n * depth, gen);     // [n, depth]
        const std::vector<real> Y = random_numbers(depth * width, gen); // [depth, width]
        std::vector<real> C(static_cast<size_t>(n * width), real(-7));  // [n, width], overwritten
        small_matmul(n, width, depth, X.data(), depth, 1, Y.data(), width, C.data(), width);
        for (int64_t i = 0; i < n; ++i)
          for (int64_t j = 0; j < width; ++j) {
            double expected = 0;                                        // the obvious loop, in double
            for (int64_t p = 0; p < depth; ++p) expected += double(X[i * depth + p]) * double(Y[p * width + j]);
            REQUIRE(std::abs(C[i * width + j] - expected) <= 1e-5 * (1 + std::abs(expected)) * depth);
          }
      }
    }
  }
}

TEST_CASE("small_matmul reads a transposed X through its strides: Xᵀ · Y without a copy") {
  const int64_t P = small_matmul_packet();
  const int64_t n = 6, depth = 9, width = 2 * P;
  Generator gen(8);
  const std::vector<real> Xt = random_numbers(depth * n, gen);          // [depth, n], X = Xtᵀ
  const std::vector<real> Y = random_numbers(depth * width, gen);       // [depth, width]
  std::vector<real> X(static_cast<size_t>(n * depth));                  // [n, depth], the explicit transpose
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = 0; p < depth; ++p) X[i * depth + p] = Xt[p * n + i];
  std::vector<real> strided(static_cast<size_t>(n * width)), copied(strided.size());
  small_matmul(n, width, depth, Xt.data(), 1, n, Y.data(), width, strided.data(), width);
  small_matmul(n, width, depth, X.data(), depth, 1, Y.data(), width, copied.data(), width);
  CHECK(strided == copied);                                             // the same numbers, the same order: same bits
}

TEST_CASE("small_matmul gives every number the same bits whether it is computed in a full tile (8 rows with 32 "
          "vector registers, 6 with 16), a 4-row tile or alone") {
  // The build's instruction set fixes the tile (small_matmul.cpp); the suite runs on every width built (.ci/run).
  const int64_t P = small_matmul_packet(), rows = small_matmul_tile_rows();
  MESSAGE("this build: ", P, " numbers per vector register, tiles of ", rows, " rows × 2 registers");
  const int64_t n = 2 * rows + 4 + 1, depth = 33, width = 3 * P;       // rows: two full tiles, one of 4, one alone
  Generator gen(13);
  const std::vector<real> X = random_numbers(n * depth, gen);
  const std::vector<real> Y = random_numbers(depth * width, gen);
  std::vector<real> whole(static_cast<size_t>(n * width)), by_row(whole.size()), by_packet(whole.size());
  small_matmul(n, width, depth, X.data(), depth, 1, Y.data(), width, whole.data(), width);
  for (int64_t i = 0; i < n; ++i) {                                     // one row at a time: only 1-row tiles
    small_matmul(1, width, depth, X.data() + i * depth, depth, 1, Y.data(), width, by_row.data() + i * width, width);
  }
  for (int64_t j = 0; j < width; j += P) {                              // one packet of columns at a time
    small_matmul(n, P, depth, X.data(), depth, 1, Y.data() + j, width, by_packet.data() + j, width);
  }
  CHECK(whole == by_row);
  CHECK(whole == by_packet);
}

TEST_CASE("small_matmul with accumulate adds the product to C: the same bits as forming it and adding it after") {
  const int64_t P = small_matmul_packet();
  const int64_t n = 5, depth = 7, width = 3 * P;
  Generator gen(21);
  const std::vector<real> X = random_numbers(n * depth, gen);
  const std::vector<real> Y = random_numbers(depth * width, gen);
  const std::vector<real> C0 = random_numbers(n * width, gen);         // what C holds before
  std::vector<real> product(static_cast<size_t>(n * width)), accumulated = C0;
  small_matmul(n, width, depth, X.data(), depth, 1, Y.data(), width, product.data(), width);
  small_matmul(n, width, depth, X.data(), depth, 1, Y.data(), width, accumulated.data(), width, /*accumulate=*/true);
  for (size_t e = 0; e < C0.size(); ++e) REQUIRE(accumulated[e] == C0[e] + product[e]);
}

TEST_CASE("transpose_block gives Y[c, r] = X[r, c] for blocks with and without ragged edges, inside larger rows") {
  const int64_t P = small_matmul_packet();
  Generator gen(34);
  for (int64_t rows : {int64_t(1), P - 1, P, 2 * P, 2 * P + 3}) {
    for (int64_t cols : {int64_t(1), P, P + 5, 2 * P}) {
      CAPTURE(rows);
      CAPTURE(cols);
      const int64_t x_stride = cols + 7, y_stride = rows + 2;           // rows longer than the block
      const std::vector<real> X = random_numbers(rows * x_stride, gen);
      std::vector<real> Y(static_cast<size_t>(cols * y_stride), real(-1));
      transpose_block(rows, cols, X.data(), x_stride, Y.data(), y_stride);
      for (int64_t c = 0; c < cols; ++c)
        for (int64_t r = 0; r < y_stride; ++r) {
          if (r < rows) REQUIRE(Y[c * y_stride + r] == X[r * x_stride + c]);
          else REQUIRE(Y[c * y_stride + r] == real(-1));                // beyond the block: untouched
        }
    }
  }
}
