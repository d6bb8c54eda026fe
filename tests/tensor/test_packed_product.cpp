// test_packed_product.cpp — attnlab's own GEMM (src/tensor/product/packed_product.cpp) computes C += op(X) · op(Y) as the
// definition does, for every transpose, ragged sizes and strided views; its bits do not depend on where the numbers
// sit, on how C is cut into bands, nor on the thread count; and it agrees with Eigen's GEMM, its reference, and with
// OpenBLAS's (model.gemm: blas), whose bits do not depend on the bands either. What stays bit-reproducible, backend
// by backend: tests/autograd/test_ops_matmul_shape.cpp (every offset, every backend) and the cases below.
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tensor/product/packed_product.h"
#include "tensor/product/product.h"
#include "tensor/random.h"

using namespace attnlab;

namespace {

// One product's operands as stored, in buffers wider than the matrices (rows `pad` numbers apart beyond their
// width) and starting `offset` numbers in, so that the views are strided and sit anywhere in a cache line.
struct Operands {
  int64_t n, k, m;
  bool transpose_x, transpose_y;
  std::vector<real> x, y;                                               // op(X) [n, k], op(Y) [k, m], row-major

  Operands(int64_t n_, int64_t k_, int64_t m_, bool tx, bool ty, Generator& gen)
      : n(n_), k(k_), m(m_), transpose_x(tx), transpose_y(ty) {
    for (int64_t i = 0; i < n * k; ++i) x.push_back(static_cast<real>(gen.normal()));
    for (int64_t i = 0; i < k * m; ++i) y.push_back(static_cast<real>(gen.normal()));
  }
  real op_x(int64_t i, int64_t p) const { return x[static_cast<size_t>(i * k + p)]; }
  real op_y(int64_t p, int64_t j) const { return y[static_cast<size_t>(p * m + j)]; }

  // X as stored ([n, k], or [k, n] when transposed) in a buffer with rows `stride` apart, from `offset` on; Y alike.
  std::vector<real> stored_x(int64_t stride, int64_t offset) const { return store(x, n, k, transpose_x, stride, offset); }
  std::vector<real> stored_y(int64_t stride, int64_t offset) const { return store(y, k, m, transpose_y, stride, offset); }

  // op(M) [rows, cols] as M is stored: op(M) itself, or its transpose [cols, rows].
  static std::vector<real> store(const std::vector<real>& op, int64_t rows, int64_t cols, bool transposed,
                                 int64_t stride, int64_t offset) {
    std::vector<real> buffer(static_cast<size_t>(offset + (transposed ? cols : rows) * stride), real(-99));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        buffer[static_cast<size_t>(offset + (transposed ? c * stride + r : r * stride + c))] =
            op[static_cast<size_t>(r * cols + c)];
    return buffer;
  }

  // C [n, m] (rows `pad` numbers apart beyond m, starting at 1 everywhere) += op(X) · op(Y) by the packed GEMM;
  // returns C's n·m numbers, row by row. Every padding number must still be 1.
  std::vector<real> packed(int64_t pad, int64_t offset) const {
    const int64_t x_width = transpose_x ? n : k, y_width = transpose_y ? k : m;
    const std::vector<real> xs = stored_x(x_width + pad, offset), ys = stored_y(y_width + pad, offset);
    std::vector<real> c(static_cast<size_t>(offset + n * (m + pad)), real(1));
    add_packed_product(StridedMatrixMap(c.data() + offset, n, m, Eigen::OuterStride<>(m + pad)),
                       ConstStridedMatrixMap(xs.data() + offset, transpose_x ? k : n, x_width,
                                             Eigen::OuterStride<>(x_width + pad)), transpose_x,
                       ConstStridedMatrixMap(ys.data() + offset, transpose_y ? m : k, y_width,
                                             Eigen::OuterStride<>(y_width + pad)), transpose_y);
    std::vector<real> result;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < m + pad; ++j) {
        const real value = c[static_cast<size_t>(offset + i * (m + pad) + j)];
        if (j < m) result.push_back(value);
        else REQUIRE(value == real(1));                                 // nothing written beside C
      }
    }
    return result;
  }
};

// The definition, summed in double: 1 + Σ_p op(X)[i, p] · op(Y)[p, j] (C starts at 1).
void require_definition(const Operands& o, const std::vector<real>& c) {
  for (int64_t i = 0; i < o.n; ++i) {
    for (int64_t j = 0; j < o.m; ++j) {
      double expected = 1, magnitude = 1;
      for (int64_t p = 0; p < o.k; ++p) {
        expected += double(o.op_x(i, p)) * double(o.op_y(p, j));
        magnitude += std::abs(double(o.op_x(i, p)) * double(o.op_y(p, j)));
      }
      INFO("C[", i, ", ", j, "]");
      REQUIRE(std::abs(double(c[static_cast<size_t>(i * o.m + j)]) - expected) < 1e-5 * magnitude);
    }
  }
}

}  // namespace

TEST_CASE("the packed GEMM matches the definition for every transpose, ragged sizes and strided views, and writes "
          "nothing beside C") {
  // Sizes around the kernel's edges: a panel is 2 vector registers wide (32 floats), a tile 8 rows, a depth block
  // 256, a row block 256 — whole, one short, one over, and smaller than one.
  Generator gen(31);
  struct Size { int64_t n, k, m; };
  for (Size s : {Size{1, 1, 1}, Size{7, 5, 33}, Size{9, 256, 32}, Size{17, 257, 31}, Size{40, 600, 100},
                 Size{257, 20, 65}, Size{3, 513, 7}}) {
    for (bool tx : {false, true}) {
      for (bool ty : {false, true}) {
        INFO("n ", s.n, ", k ", s.k, ", m ", s.m, ", transpose_x ", tx, ", transpose_y ", ty);
        const Operands o(s.n, s.k, s.m, tx, ty, gen);
        require_definition(o, o.packed(/*pad=*/0, /*offset=*/0));
        require_definition(o, o.packed(/*pad=*/5, /*offset=*/0));
      }
    }
  }
}

TEST_CASE("the packed GEMM gives the same bits wherever its numbers sit in memory") {
  Generator gen(32);
  for (bool tx : {false, true}) {
    for (bool ty : {false, true}) {
      INFO("transpose_x ", tx, ", transpose_y ", ty);
      const Operands o(37, 300, 70, tx, ty, gen);
      const std::vector<real> first = o.packed(0, 0);
      for (int64_t offset : {1, 3, 7, 16}) {
        for (int64_t pad : {0, 1, 9}) {
          INFO("offset ", offset, ", pad ", pad);
          REQUIRE(o.packed(pad, offset) == first);
        }
      }
    }
  }
}

TEST_CASE("the packed GEMM gives the same bits for a band of rows or of columns as for the whole product") {
  // product.cpp shares a product among the threads by bands of C; each C[i, j] must not depend on the band.
  Generator gen(33);
  const int64_t n = 50, k = 600, m = 90;
  for (bool tx : {false, true}) {
    for (bool ty : {false, true}) {
      INFO("transpose_x ", tx, ", transpose_y ", ty);
      const Operands o(n, k, m, tx, ty, gen);
      const std::vector<real> whole = o.packed(0, 0);
      const std::vector<real> xs = o.stored_x(tx ? n : k, 0), ys = o.stored_y(ty ? k : m, 0);
      const ConstStridedMatrixMap X(xs.data(), tx ? k : n, tx ? n : k, Eigen::OuterStride<>(tx ? n : k));
      const ConstStridedMatrixMap Y(ys.data(), ty ? m : k, ty ? k : m, Eigen::OuterStride<>(ty ? k : m));
      std::vector<real> by_rows(static_cast<size_t>(n * m), real(1)), by_columns = by_rows;
      for (auto [b, e] : {std::pair<int64_t, int64_t>{0, 13}, {13, 50}}) {   // rows [0, 13), [13, 50)
        const ConstStridedMatrixMap x_band(tx ? X.data() + b : X.data() + b * X.outerStride(), tx ? k : e - b,
                                           tx ? e - b : k, Eigen::OuterStride<>(X.outerStride()));
        add_packed_product(StridedMatrixMap(by_rows.data() + b * m, e - b, m, Eigen::OuterStride<>(m)), x_band, tx,
                           Y, ty);
      }
      for (auto [b, e] : {std::pair<int64_t, int64_t>{0, 37}, {37, 90}}) {   // columns [0, 37), [37, 90)
        const ConstStridedMatrixMap y_band(ty ? Y.data() + b * Y.outerStride() : Y.data() + b, ty ? e - b : k,
                                           ty ? k : e - b, Eigen::OuterStride<>(Y.outerStride()));
        add_packed_product(StridedMatrixMap(by_columns.data() + b, n, e - b, Eigen::OuterStride<>(m)), X, tx,
                           y_band, ty);
      }
      REQUIRE(by_rows == whole);
      REQUIRE(by_columns == whole);
    }
  }
}

TEST_CASE("add_product gives the same bits on any thread count when it cuts C into bands, on the packed GEMM and "
          "on OpenBLAS's; Eigen's and OpenBLAS's agree with the packed GEMM to float rounding") {
  // [300, 64] and [1100, 64] are cut into bands of rows, [48, 400] and [48, 1200] into bands of columns (n·k·m ≥
  // 2^22, tensor/parallel.h). The packed GEMM's depth blocks stay whole, so its bits are those of one call on one
  // thread. A product on OpenBLAS is never cut (bands of one product computed at once gave wrong numbers:
  // blas_product.cpp), so its bits are the same on 1, 2 or 3 threads. Eigen's GEMM picks its blocks from the band's sizes:
  // the same numbers to float rounding, not to the bit. (A deep product cut along k changes the bits with the
  // thread count on every backend: product.cpp, "Deep products".)
  Generator gen(34);
  const int threads_before = omp_get_max_threads();
  struct Size { int64_t n, k, m; };
  for (Size s : {Size{300, 250, 64}, Size{48, 300, 400}, Size{1100, 1000, 64}, Size{48, 700, 1200}}) {
    for (bool tx : {false, true}) {
      for (bool ty : {false, true}) {
        INFO("n ", s.n, ", k ", s.k, ", m ", s.m, ", transpose_x ", tx, ", transpose_y ", ty);
        const Operands o(s.n, s.k, s.m, tx, ty, gen);
        const std::vector<real> xs = o.stored_x(tx ? s.n : s.k, 0), ys = o.stored_y(ty ? s.k : s.m, 0);
        const ConstMatrixMap X(xs.data(), tx ? s.k : s.n, tx ? s.n : s.k);
        const ConstMatrixMap Y(ys.data(), ty ? s.m : s.k, ty ? s.k : s.m);
        const std::vector<real> alone = o.packed(0, 0);                 // one call, one thread
        std::vector<real> blas_on_one_thread;
        for (int threads : {1, 2, 3}) {
          omp_set_num_threads(threads);
          for (Gemm gemm : built_gemms()) {
            INFO("threads ", threads, ", GEMM ", name_of(gemm));
            std::vector<real> c(static_cast<size_t>(s.n * s.m), real(1));
            add_product(MatrixMap(c.data(), s.n, s.m), X, tx, Y, ty, gemm);
            if (gemm == Gemm::packed) {
              REQUIRE(c == alone);
              continue;
            }
            for (size_t i = 0; i < c.size(); ++i) REQUIRE(std::abs(c[i] - alone[i]) < 1e-4 * (1 + std::abs(alone[i])));
            if (gemm == Gemm::blas && threads == 1) blas_on_one_thread = c;
            if (gemm == Gemm::blas) REQUIRE(c == blas_on_one_thread);
          }
        }
      }
    }
  }
  omp_set_num_threads(threads_before);
}

TEST_CASE("model.gemm: auto is the packed GEMM; blas is refused, naming the key, in a build without it") {
  const std::vector<Gemm> gemms = built_gemms();
  const bool has_blas = std::find(gemms.begin(), gemms.end(), Gemm::blas) != gemms.end();
  CHECK(resolve_gemm(Gemm::automatic) == Gemm::packed);
  CHECK(resolve_gemm(Gemm::packed) == Gemm::packed);
  CHECK(resolve_gemm(Gemm::eigen) == Gemm::eigen);
  if (has_blas) {
    CHECK(resolve_gemm(Gemm::blas) == Gemm::blas);
  } else {
    CHECK_THROWS_WITH(resolve_gemm(Gemm::blas, "model.gemm"), doctest::Contains("model.gemm: blas"));
  }
}
