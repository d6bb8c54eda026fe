// test_bf16_product.cpp — the bfloat16 product (src/tensor/product/bf16_product.h): the fast path (vdpbf16ps)
// gives the emulated path's bits on awkward shapes and every transpose, whatever the thread count; the tile path
// (AMX) is within float32 sums' rounding of the emulated path there, with the same bits on any thread count; all
// stay within the tolerance bf16's rounding allows of the float32 product; the rounding is unbiased (it would not
// be with truncation); the fast paths flush subnormals, as their instructions do; bad input gets a clear error.
#include <doctest/doctest.h>
#include <omp.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tensor/bfloat16.h"
#include "tensor/product/bf16_product.h"
#include "tensor/random.h"
#include "util/choice.h"
#include "util/error.h"

using namespace attnlab;

namespace {

// One product's operands as stored (X [n, k] or [k, n] when transposed; Y [k, m] or [m, k]) and a C to add to.
struct Operands {
  int64_t n, k, m;
  bool transpose_x, transpose_y;
  FloatMatrix X, Y, C;

  Operands(int64_t n_, int64_t k_, int64_t m_, bool tx, bool ty, Generator& gen, double low = 0, double high = 0)
      : n(n_), k(k_), m(m_), transpose_x(tx), transpose_y(ty), X(tx ? k : n, tx ? n : k), Y(ty ? m : k, ty ? k : m),
        C(n, m) {
    const auto draw = [&] { return static_cast<float>(low < high ? gen.uniform(low, high) : gen.normal()); };
    for (int64_t i = 0; i < X.size(); ++i) X.data()[i] = draw();
    for (int64_t i = 0; i < Y.size(); ++i) Y.data()[i] = draw();
    C.setZero();
  }
  float op_x(int64_t i, int64_t p) const { return transpose_x ? X(p, i) : X(i, p); }
  float op_y(int64_t p, int64_t j) const { return transpose_y ? Y(j, p) : Y(p, j); }

  FloatMatrix product(Bf16Path path, const FloatMatrix& start) const {
    FloatMatrix result = start;
    add_bf16_product(FloatMatrixMap(result.data(), n, m), ConstFloatMatrixMap(X.data(), X.rows(), X.cols()),
                     transpose_x, ConstFloatMatrixMap(Y.data(), Y.rows(), Y.cols()), transpose_y, path);
    return result;
  }
};

// The paths this CPU runs: the emulated one everywhere, then the fast and tile paths where it has them.
std::vector<Bf16Path> paths_here() {
  std::vector<Bf16Path> paths{Bf16Path::emulated};
  if (bf16_fast_available()) paths.push_back(Bf16Path::fast);
  if (bf16_tiles_available()) paths.push_back(Bf16Path::tiles);
  return paths;
}

bool same_bits(const FloatMatrix& a, const FloatMatrix& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(float) * static_cast<size_t>(a.size())) == 0;
}

// Ragged shapes {n, k, m}: k odd, k across the 512-deep blocks (once and twice) and the tile path's 16-pair steps;
// n across the 192-row blocks, the fast path's 8/4/2/1-row tiles and the tile path's 32-row blocks; m across the
// 32-column panels and their 16-column halves.
const std::vector<std::vector<int64_t>> ragged_shapes{
    {1, 1, 1},      {3, 5, 7},     {9, 17, 33},    {13, 2, 16},   {32, 32, 32}, {33, 255, 47}, {65, 257, 31},
    {200, 301, 40}, {15, 513, 70}, {17, 1025, 33}, {40, 1536, 9}, {64, 34, 64}, {193, 600, 80}};

// check(operands, start) for each ragged shape in each of the four transposes, with a random C to add to.
template <typename Check>
void for_each_ragged_case(Generator& gen, Check check) {
  for (const std::vector<int64_t>& s : ragged_shapes) {
    for (int transposes = 0; transposes < 4; ++transposes) {
      const Operands o(s[0], s[1], s[2], transposes & 1, transposes & 2, gen);
      FloatMatrix start(o.n, o.m);
      for (int64_t i = 0; i < start.size(); ++i) start.data()[i] = static_cast<float>(gen.normal());   // C += …
      INFO("n " << o.n << ", k " << o.k << ", m " << o.m << ", transpose_x " << o.transpose_x << ", transpose_y "
                << o.transpose_y);
      check(o, start);
    }
  }
}

}  // namespace

TEST_CASE("the fast bf16 product gives the emulated product's bits on ragged shapes and every transpose") {
  if (!bf16_fast_available()) {
    MESSAGE("skipped: " << bf16_support());
    return;
  }
  Generator gen(3);
  for_each_ragged_case(gen, [](const Operands& o, const FloatMatrix& start) {
    CHECK(same_bits(o.product(Bf16Path::fast, start), o.product(Bf16Path::emulated, start)));
  });
}

TEST_CASE("the tile bf16 product is within float32 sums' rounding of the emulated product, on ragged shapes") {
  if (!bf16_tiles_available()) {
    MESSAGE("skipped: " << bf16_support());
    return;
  }
  // |C_tiles − C_emulated| ≤ 2γ_k · Σ_p |x̂_p · ŷ_p| (bf16_product_amx.cpp): the same rounded operands and exact
  // products, the sums in another order. The bound is k · 2^−16 of bfloat16's own (1/65 at k = 1,000): an operand
  // rounded otherwise, a tile left out or counted twice, a pair out of place would each be far outside it.
  Generator gen(4);
  int64_t same = 0, total = 0;
  for_each_ragged_case(gen, [&](const Operands& o, const FloatMatrix& start) {
    const FloatMatrix tiles = o.product(Bf16Path::tiles, start), emulated = o.product(Bf16Path::emulated, start);
    const double gamma_k = (o.k + 1) * std::ldexp(1.0, -24) / (1 - (o.k + 1) * std::ldexp(1.0, -24));
    int64_t outside = 0;
    for (int64_t i = 0; i < o.n; ++i) {
      for (int64_t j = 0; j < o.m; ++j) {
        double magnitude = std::fabs(start(i, j));  // Σ |x̂·ŷ|, and the C added to
        for (int64_t p = 0; p < o.k; ++p) {
          magnitude += std::fabs(double(round_to_bfloat16(o.op_x(i, p))) * round_to_bfloat16(o.op_y(p, j)));
        }
        if (std::fabs(double(tiles(i, j)) - emulated(i, j)) > 2 * gamma_k * magnitude) ++outside;
        same += tiles(i, j) == emulated(i, j);
        ++total;
      }
    }
    CHECK(outside == 0);
  });
  MESSAGE("the tile path gave the emulated path's bits in " << same << " of " << total << " numbers");
}

TEST_CASE("the fast and tile bf16 products give the same bits on one thread and on two") {
  if (!bf16_fast_available()) {
    MESSAGE("skipped: " << bf16_support());
    return;
  }
  Generator gen(5);
  const int threads_before = omp_get_max_threads();
  for (const Bf16Path path : paths_here()) {
    if (path == Bf16Path::emulated) continue;
    // bands of rows, then bands of columns; 2 depth blocks, so each band's tiles carry C from block to block
    for (int cut = 0; cut < 8; ++cut) {  // both cuts, every transpose
      const bool rows_longer = cut < 4;
      const Operands o(rows_longer ? 300 : 70, 777, rows_longer ? 70 : 300, cut & 1, cut & 2, gen);  // > 4 M mul-adds
      INFO(name_of(path) << ": rows longer " << rows_longer << ", transpose_x " << o.transpose_x << ", transpose_y "
                         << o.transpose_y);
      omp_set_num_threads(1);
      const FloatMatrix one = o.product(path, o.C);
      omp_set_num_threads(2);
      const FloatMatrix two = o.product(path, o.C);
      CHECK(same_bits(one, two));
      if (path == Bf16Path::fast) CHECK(same_bits(one, o.product(Bf16Path::emulated, o.C)));
    }
  }
  omp_set_num_threads(threads_before);
}

TEST_CASE("the bf16 product is within (2u + u² + 2γ_k) · Σ|x·y| of the float32 product, u = 2^-8") {
  Generator gen(7);
  const Operands o(24, 1001, 40, true, false, gen);
  const double u = bfloat16_unit_roundoff, gamma_k = o.k * std::ldexp(1.0, -24) / (1 - o.k * std::ldexp(1.0, -24));
  for (const Bf16Path path : paths_here()) {
    const FloatMatrix C = o.product(path, o.C);
    int64_t outside = 0;
    double worst = 0;                                                   // the largest error / bound seen
    for (int64_t i = 0; i < o.n; ++i) {
      for (int64_t j = 0; j < o.m; ++j) {
        float f32 = 0;                                                  // the float32 product, in p order
        double magnitude = 0;                                           // Σ_p |x·y|
        for (int64_t p = 0; p < o.k; ++p) {
          f32 += o.op_x(i, p) * o.op_y(p, j);
          magnitude += std::fabs(static_cast<double>(o.op_x(i, p)) * o.op_y(p, j));
        }
        const double bound = (2 * u + u * u + 2 * gamma_k) * magnitude, error = std::fabs(C(i, j) - double(f32));
        worst = std::max(worst, error / bound);
        if (error > bound) ++outside;
      }
    }
    INFO(name_of(path) << ": the largest error is " << worst << " of the bound");
    CHECK(outside == 0);
    CHECK(worst > 0.005);                                               // and the products were rounded at all
  }
}

TEST_CASE("the bf16 product's rounding is unbiased: round to nearest even, not truncation") {
  // Positive operands: truncating each to 8 bits would make every product smaller, by ~1.5u on average; round to
  // nearest errs both ways and the errors cancel. Measured: the mean error over Σ x·y, in units of u.
  Generator gen(9);
  const Operands o(32, 1024, 32, false, false, gen, 0.0, 1.0);
  for (const Bf16Path path : paths_here()) {
    const FloatMatrix C = o.product(path, o.C);
    double error = 0, total = 0;
    for (int64_t i = 0; i < o.n; ++i) {
      for (int64_t j = 0; j < o.m; ++j) {
        double exact = 0;                                               // in double, from the unrounded operands
        for (int64_t p = 0; p < o.k; ++p) exact += static_cast<double>(o.op_x(i, p)) * o.op_y(p, j);
        error += C(i, j) - exact;
        total += exact;
      }
    }
    const double bias = error / total / bfloat16_unit_roundoff;
    INFO(name_of(path) << ": mean relative error " << bias << " u");
    CHECK(std::fabs(bias) < 0.05);
  }
}

TEST_CASE(
    "the fast bf16 products flush subnormal products to zero, as their instructions do; the emulated one keeps them") {
  if (!bf16_fast_available()) {
    MESSAGE("skipped: " << bf16_support());
    return;
  }
  FloatMatrix X(1, 2), Y(2, 1), C = FloatMatrix::Zero(1, 1);
  X << std::ldexp(1.0f, -70), 0.0f;                                     // 2^−70 · 2^−70 = 2^−140, a subnormal float
  Y << std::ldexp(1.0f, -70), 0.0f;
  Generator gen(1);
  Operands o(1, 2, 1, false, false, gen);
  o.X = X;
  o.Y = Y;
  CHECK(o.product(Bf16Path::emulated, C)(0, 0) == std::ldexp(1.0f, -140));
  CHECK(o.product(Bf16Path::fast, C)(0, 0) == 0.0f);
  if (bf16_tiles_available()) CHECK(o.product(Bf16Path::tiles, C)(0, 0) == 0.0f);
}

TEST_CASE("the bf16 product refuses shapes that do not fit, and the fast path on a CPU without AVX512_BF16") {
  FloatMatrix X = FloatMatrix::Ones(3, 4), Y = FloatMatrix::Ones(5, 2), C = FloatMatrix::Zero(3, 2);
  const auto run = [&](Bf16Path path) {
    add_bf16_product(FloatMatrixMap(C.data(), 3, 2), ConstFloatMatrixMap(X.data(), 3, 4), false,
                     ConstFloatMatrixMap(Y.data(), Y.rows(), Y.cols()), false, path);
  };
  CHECK_THROWS_WITH_AS(run(Bf16Path::emulated), doctest::Contains("op(X) is [3, 4] and op(Y) [5, 2]"), Error);
  Y = FloatMatrix::Ones(4, 2);
  setenv("ATTNLAB_NO_AVX512_BF16", "1", 1);                             // this CPU, as one without AVX512_BF16
  CHECK_FALSE(bf16_fast_available());
  CHECK_THROWS_WITH_AS(run(Bf16Path::fast), doctest::Contains("the fast bfloat16 product needs AVX512_BF16"), Error);
  run(Bf16Path::emulated);                                              // the emulated path runs anywhere
  unsetenv("ATTNLAB_NO_AVX512_BF16");
  CHECK(C(0, 0) == 4.0f);
  setenv("ATTNLAB_NO_AMX", "1", 1);  // this CPU, as one without AMX
  CHECK_FALSE(bf16_tiles_available());
  CHECK(fastest_bf16_path() == (bf16_fast_available() ? Bf16Path::fast : Bf16Path::emulated));
  CHECK_THROWS_WITH_AS(run(Bf16Path::tiles), doctest::Contains("the tile path of the bfloat16 product needs AMX-BF16"),
                       Error);
  unsetenv("ATTNLAB_NO_AMX");
}
