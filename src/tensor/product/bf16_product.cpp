// bf16_product.cpp — C += op(X) · op(Y) with bfloat16 operands and float32 sums (see bf16_product.h): the
// emulated path as plain loops, the choice of path, and the threads for the fast ones (bf16_product_avx512.cpp,
// bf16_product_amx.cpp).
#include "tensor/product/bf16_product.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>

#include "tensor/bfloat16.h"
#include "tensor/parallel.h"
#include "tensor/product/bf16_product_amx.h"
#include "tensor/product/bf16_product_avx512.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// The emulated path: the operands rounded one by one (to_bfloat16, round to nearest even), then the sum of
// bf16_product.h as written — pairs in order, the odd term first, every + a float32 +. The products are exact, so
// `c + x · y` is the instruction's step whether or not the compiler fuses it. (The pair written as two lines,
// c = c + x[p+1]·y[p+1]; c = c + x[p]·y[p] with p += 2, is the same sum, but GCC 12.2 vectorizes that form of
// the loop into wrong numbers at -O2 and above — not merely another order; one index p ^ 1 it compiles right.)
void add_emulated_product(FloatMatrixMap C, ConstFloatMatrixMap X, bool transpose_x, ConstFloatMatrixMap Y,
                          bool transpose_y) {
  const int64_t n = C.rows(), m = C.cols(), k = transpose_x ? X.rows() : X.cols();
  const int64_t k_even = k + (k % 2);                                   // an odd k gets a zero last partner
  FloatMatrix x = FloatMatrix::Zero(n, k_even), y = FloatMatrix::Zero(m, k_even);   // op(X) [n, k], op(Y)ᵀ [m, k]
  for (int64_t i = 0; i < n; ++i)
    for (int64_t p = 0; p < k; ++p) x(i, p) = round_to_bfloat16(transpose_x ? X(p, i) : X(i, p));
  for (int64_t j = 0; j < m; ++j)
    for (int64_t p = 0; p < k; ++p) y(j, p) = round_to_bfloat16(transpose_y ? Y(j, p) : Y(p, j));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < m; ++j) {
      float c = C(i, j);
      for (int64_t p = 0; p < k_even; ++p) {
        const int64_t q = p ^ 1;                                        // 1, 0, 3, 2, …: each pair's odd term first
        c = c + x(i, q) * y(j, q);
      }
      C(i, j) = c;
    }
  }
}

// A fast path's kernel: C [n, m] += op(X) [n, k] · op(Y) [k, m] on one thread (bf16_product_avx512.h's arguments).
using Bf16Kernel = void (*)(int64_t n, int64_t m, int64_t k, float* C, int64_t c_stride, const float* X,
                            int64_t x_stride, bool transpose_x, const float* Y, int64_t y_stride, bool transpose_y);

// A fast path on one thread, for the rows [b, e) of C or its columns [b, e).
void add_fast_band(Bf16Kernel kernel, FloatMatrixMap C, ConstFloatMatrixMap X, bool transpose_x, ConstFloatMatrixMap Y,
                   bool transpose_y, bool by_rows, int64_t b, int64_t e) {
  const int64_t n = C.rows(), m = C.cols(), k = transpose_x ? X.rows() : X.cols();
  const int64_t x_stride = X.cols(), y_stride = Y.cols();
  if (by_rows) {                                                        // rows b..e of op(X): X's rows or columns
    kernel(e - b, m, k, C.data() + b * m, m, X.data() + (transpose_x ? b : b * x_stride), x_stride, transpose_x,
           Y.data(), y_stride, transpose_y);
  } else {                                                              // columns b..e of op(Y): Y's columns or rows
    kernel(n, e - b, k, C.data() + b, m, X.data(), x_stride, transpose_x, Y.data() + (transpose_y ? b * y_stride : b),
           y_stride, transpose_y);
  }
}

// C's longer side cut into one band per thread (multiples of 32: whole tiles), when the product is worth the
// threads (tensor/parallel.h) and we are not inside another parallel region. Each C[i, j] is one chain in any band.
void add_fast_product(Bf16Kernel kernel, FloatMatrixMap C, ConstFloatMatrixMap X, bool transpose_x,
                      ConstFloatMatrixMap Y, bool transpose_y) {
  const int64_t n = C.rows(), m = C.cols(), k = transpose_x ? X.rows() : X.cols();
  const bool by_rows = n >= m;
  const int64_t longest = std::max(n, m), multiple = 32;
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  if (threads < 2 || !worth_threads_for_products(n * k * m) || longest < 2 * multiple * threads) {
    add_fast_band(kernel, C, X, transpose_x, Y, transpose_y, by_rows, 0, longest);
    return;
  }
  const auto edge = [&](int t) { return t >= threads ? longest : longest * t / threads / multiple * multiple; };
#pragma omp parallel for schedule(static, 1) num_threads(threads)
  for (int t = 0; t < threads; ++t) {
    add_fast_band(kernel, C, X, transpose_x, Y, transpose_y, by_rows, edge(t), edge(t + 1));
  }
}

}  // namespace

const std::vector<std::string>& choice_names(Bf16Path) {
  static const std::vector<std::string> names{"emulated", "fast", "tiles"};
  return names;
}

namespace {

bool cpu_has_avx512_bf16() {
#if defined(__x86_64__)
  // GCC's check asks cpuid for AVX512_BF16 and the operating system (xgetbv) for the 512-bit registers' state.
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16");
  return has;
#else
  return false;
#endif
}

// Whether the environment variable `name` is set to something other than "" or "0".
bool switched_on(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::string(value) != "" && std::string(value) != "0";
}

// ATTNLAB_NO_AVX512_BF16=1 makes this CPU count as one without it: to see (and test) what such a CPU is told.
bool pretending_no_bf16() {
  return switched_on("ATTNLAB_NO_AVX512_BF16");
}

// AMX-BF16, and Linux's leave to use the tiles, asked for once. ATTNLAB_NO_AMX=1 leaves them unused: the model's
// products then run on vdpbf16ps, the vector path, as on a CPU without tiles.
bool cpu_has_amx_tiles() {
#if defined(__x86_64__)
  static const bool has = cpu_has_avx512_bf16() && request_amx_tiles();
  return has;
#else
  return false;
#endif
}

}  // namespace

const std::vector<std::string>& choice_names(Precision) {
  static const std::vector<std::string> names{"float32", "bfloat16", "bfloat16-emulated"};
  return names;
}

Precision resolve_precision(Precision precision, const std::string& key) {
  if (precision != Precision::bfloat16 || bf16_fast_available()) return precision;
  throw Error(key + ": bfloat16 needs AVX512_BF16: " + bf16_support() +
              ". Use float32 (as fast as this CPU goes), or bfloat16-emulated (the same numbers as bfloat16, "
              "computed by plain C++ many times slower than float32: for tests and learning, not for speed)");
}

bool bf16_fast_available() { return cpu_has_avx512_bf16() && !pretending_no_bf16(); }

bool bf16_tiles_available() {
  return bf16_fast_available() && !switched_on("ATTNLAB_NO_AMX") && cpu_has_amx_tiles();
}

Bf16Path fastest_bf16_path() {
  if (bf16_tiles_available()) return Bf16Path::tiles;
  return bf16_fast_available() ? Bf16Path::fast : Bf16Path::emulated;
}

std::string bf16_support() {
  if (bf16_tiles_available()) return "AMX-BF16 (tdpbf16ps tiles)";
  if (bf16_fast_available() && switched_on("ATTNLAB_NO_AMX") && cpu_has_amx_tiles()) {
    return "AVX512_BF16 (vdpbf16ps; AMX-BF16 switched off: ATTNLAB_NO_AMX is set)";
  }
  if (bf16_fast_available()) return "AVX512_BF16 (vdpbf16ps)";
  if (cpu_has_avx512_bf16()) return "AVX512_BF16 switched off (ATTNLAB_NO_AVX512_BF16 is set)";
  return "no AVX512_BF16 on this CPU (it needs a Zen 4 or later, or a Cooper Lake, Sapphire Rapids or later Xeon)";
}

void add_bf16_product(FloatMatrixMap C, ConstFloatMatrixMap X, bool transpose_x, ConstFloatMatrixMap Y,
                      bool transpose_y, Bf16Path path) {
  const int64_t n = transpose_x ? X.cols() : X.rows(), k = transpose_x ? X.rows() : X.cols();
  const int64_t k_y = transpose_y ? Y.cols() : Y.rows(), m = transpose_y ? Y.rows() : Y.cols();
  if (k != k_y || C.rows() != n || C.cols() != m) {
    throw Error("add_bf16_product: op(X) is [" + std::to_string(n) + ", " + std::to_string(k) + "] and op(Y) [" +
                std::to_string(k_y) + ", " + std::to_string(m) + "], so C must be [" + std::to_string(n) + ", " +
                std::to_string(m) + "] with equal inner sizes; C is [" + std::to_string(C.rows()) + ", " +
                std::to_string(C.cols()) + "]");
  }
  if (path == Bf16Path::emulated) {
    add_emulated_product(C, X, transpose_x, Y, transpose_y);
    return;
  }
  if (!bf16_fast_available()) {
    throw Error("the fast bfloat16 product needs AVX512_BF16: " + bf16_support() +
                "; the emulated path (Bf16Path::emulated) gives the same numbers, slowly");
  }
#if defined(__x86_64__)
  if (path == Bf16Path::tiles) {
    if (!bf16_tiles_available()) {
      throw Error("the tile path of the bfloat16 product needs AMX-BF16 (and Linux's leave to use it): " +
                  bf16_support() + "; the fast path (Bf16Path::fast, vdpbf16ps) runs here");
    }
    add_fast_product(add_bf16_product_amx, C, X, transpose_x, Y, transpose_y);
    return;
  }
#endif
  add_fast_product(add_bf16_product_avx512, C, X, transpose_x, Y, transpose_y);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
