// simd128_product.cpp — the packed GEMM with WebAssembly simd128 tiles (simd128_product.h says why it exists).
//
// It replaces, in the browser, the chain packed_product.cpp + small_matmul.cpp, whose tiles are Eigen packets (there
// Eigen's SSE packets, translated into simd128, in tiles sized for a native machine). The plan is
// packed_product.cpp's, step for step:
//   1. the depth k in blocks of depth_block = 256:  C += op(X)[:, p0:p0+kc] · op(Y)[p0:p0+kc, :], in order;
//   2. op(Y)'s block copied into panels of 8 columns (two simd128 vectors), [kc, 8] each, zeros past m;
//   3. the rows of C row_block = 256 at a time, and their slice of op(X) copied into slivers of 4 rows, [kc, 4]
//      each, zeros past n: row p of a sliver is op(X)[r0 : r0 + 4, p], the four numbers a tile needs at step p,
//      side by side (packed_product reads op(X) in place, through strides);
//   4. a tile of 4 rows × 8 columns of C — 8 vectors in registers — takes every p of the block: the panel's row p
//      loaded once (2 vectors), the sliver's row p broadcast number by number (wasm_v128_load32_splat), then
//      c ← c + x · y lane by lane:
//          c[r][v] = wasm_f32x4_add(c[r][v], wasm_f32x4_mul(x_r, y_v))          v = 0, 1
//      4 rows, not packed_product's 6 or 8: the browser's compiler keeps simd128 values in the CPU's 16 vector
//      registers (SSE/AVX on x86-64) and V8 keeps one of them for itself; 4 × 2 accumulators + 2 + 1 + a product
//      leave room. (Measured in headless Chromium on the test machine: 5 rows ran as fast, 6 spilled accumulators
//      to the stack and ran at two thirds of the speed.)
// Why copy op(X) too: both operands then stream through memory in the order the tile reads them, and the four
// broadcasts of a step sit at fixed offsets of one pointer. Copying a [256, kc] slice costs a pass over it, which
// every panel of C's columns then reuses; it made the toy translator's products 15–20 % faster in the page, most
// of all the weight gradients' op(X) = Xᵀ, which the tiles otherwise read one row of X per step p.
// What it saves: 1.6 times the packed GEMM's speed at the toy translator's shapes, now that the packed GEMM's tiles
// are 4-float packets in the browser too (5 to 6 times while they were one float; web/simd128_check.cpp times both
// in the page).
//
// The numbers: each C[i, j] gets, per depth block, one chain c ← c + x·y in p order from 0, added to C once — the
// packed GEMM's chain. (Copying moves numbers, it changes none; a tile that overhangs C's last rows or columns
// computes its chain in scratch and only the part C has is added, once, as the packed GEMM does with its last
// panel.) WebAssembly has no fused multiply-add (simd128 has none; relaxed-simd's is not in Emscripten 3.1.6's
// compiler), so both round the product and then the sum: the same bits, which tests/web/simd128_browser_test.py
// checks in the browser (web/simd128_check.cpp).
//
// Only for the browser build, float32: everything below the #if is compiled with -msimd128 (cmake/browser.cmake)
// and not natively, where the chapters' glob also picks this file up; there the stand-in at the end says so.
#include "tensor/product/simd128_product.h"

#include "util/error.h"

#if defined(__wasm_simd128__) && !defined(ATTNLAB_DOUBLE)

#include <wasm_simd128.h>

#include <algorithm>
#include <vector>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr int64_t depth_block = 256;  // packed_product.cpp's blocks: the same sums
constexpr int64_t row_block = 256;
constexpr int64_t lanes = 4;                // floats in a simd128 vector
constexpr int64_t panel_width = 2 * lanes;  // 8 columns of C per tile
constexpr int64_t tile_rows = 4;            // rows of C per tile, and of op(X) per sliver

// One tile: C[0 … 3, 0 … 7] (+)= Σ_p sliver[p, r] · panel[p, :], the tile's 8 vectors in registers.
// The loop walks pointers (x: sliver row p; y: panel row p), 32-bit in WebAssembly: 64-bit index arithmetic in the
// innermost loop cost a quarter of the time (measured under node).
void tile(int64_t depth, const float* sliver, const float* panel, float* C, int64_t c_stride, bool accumulate) {
  v128_t c[tile_rows][2];  // the tile of C
  for (int r = 0; r < tile_rows; ++r) c[r][0] = c[r][1] = wasm_f32x4_splat(0.0f);
  const float* x = sliver;
  for (const float* y = panel; y != panel + depth * panel_width; y += panel_width, x += tile_rows) {
    const v128_t y0 = wasm_v128_load(y), y1 = wasm_v128_load(y + lanes);  // panel[p, 0:4], panel[p, 4:8]
    for (int r = 0; r < tile_rows; ++r) {
      const v128_t x_r = wasm_v128_load32_splat(x + r);            // op(X)[r, p] in every lane
      c[r][0] = wasm_f32x4_add(c[r][0], wasm_f32x4_mul(x_r, y0));  // c += op(X)[r, p] · Y[p, j]
      c[r][1] = wasm_f32x4_add(c[r][1], wasm_f32x4_mul(x_r, y1));
    }
  }
  for (int r = 0; r < tile_rows; ++r) {
    for (int v = 0; v < 2; ++v) {
      float* target = C + r * c_stride + v * lanes;
      wasm_v128_store(target, accumulate ? wasm_f32x4_add(wasm_v128_load(target), c[r][v]) : c[r][v]);
    }
  }
}

// op(X)[0 : rows, 0 : kc] (X pointing at op(X)[i0, p0]; op(X)[i, p] = X[i · x_row + p · x_col]) into slivers:
// sliver s, [kc, 4], holds the rows [4s, 4s + 4), zeros past `rows`.
void pack_slivers(const float* X, int64_t x_row, int64_t x_col, int64_t rows, int64_t kc, float* slivers) {
  const int64_t count = (rows + tile_rows - 1) / tile_rows;
  for (int64_t s = 0; s < count; ++s) {
    float* sliver = slivers + s * kc * tile_rows;  // [kc, 4]
    const int64_t r0 = s * tile_rows, height = std::min(tile_rows, rows - r0);
    for (int64_t p = 0; p < kc; ++p) {
      for (int64_t r = 0; r < tile_rows; ++r) {
        sliver[p * tile_rows + r] = r < height ? X[(r0 + r) * x_row + p * x_col] : 0.0f;
      }
    }
  }
}

// op(Y)[p0 : p0 + kc, 0 : m] into panels: panel q, [kc, 8], holds the columns [8q, 8q + 8), zeros past m.
void pack_panels(ConstStridedMatrixMap Y, bool transpose_y, int64_t p0, int64_t kc, int64_t m, float* panels) {
  const int64_t count = (m + panel_width - 1) / panel_width, stride = Y.outerStride();
  std::fill(panels, panels + count * kc * panel_width, 0.0f);
  for (int64_t q = 0; q < count; ++q) {
    float* panel = panels + q * kc * panel_width;  // [kc, 8]
    const int64_t j0 = q * panel_width, width = std::min(panel_width, m - j0);
    for (int64_t j = 0; j < width; ++j) {
      for (int64_t p = 0; p < kc; ++p) {  // Y [m, k] when transposed, else [k, m]
        panel[p * panel_width + j] =
            transpose_y ? Y.data()[(j0 + j) * stride + p0 + p] : Y.data()[(p0 + p) * stride + j0 + j];
      }
    }
  }
}

// C[0 : rows, 0 : m] += slivers · panels for one (row block, depth block), a tile per (panel, sliver). A tile that
// overhangs C's last rows or columns is computed into `edge`, [4, 8], and only the part C has is added.
void block_product(int64_t rows, int64_t m, int64_t kc, const float* slivers, const float* panels, float* C,
                   int64_t c_stride) {
  const int64_t sliver_count = (rows + tile_rows - 1) / tile_rows, panel_count = (m + panel_width - 1) / panel_width;
  float edge[tile_rows * panel_width];
  for (int64_t q = 0; q < panel_count; ++q) {
    const float* panel = panels + q * kc * panel_width;
    const int64_t j0 = q * panel_width, width = std::min(panel_width, m - j0);
    for (int64_t s = 0; s < sliver_count; ++s) {
      const int64_t r0 = s * tile_rows, height = std::min(tile_rows, rows - r0);
      float* c = C + r0 * c_stride + j0;
      if (height == tile_rows && width == panel_width) {
        tile(kc, slivers + s * kc * tile_rows, panel, c, c_stride, true);
        continue;
      }
      tile(kc, slivers + s * kc * tile_rows, panel, edge, panel_width, false);
      for (int64_t i = 0; i < height; ++i) {
        for (int64_t j = 0; j < width; ++j) c[i * c_stride + j] += edge[i * panel_width + j];
      }
    }
  }
}

}  // namespace

bool simd128_available() {
  return true;
}

std::string simd128_description() {
  return "WebAssembly simd128 (4 floats a vector, multiply then add)";
}

void add_simd128_product(StridedMatrixMap C, ConstStridedMatrixMap X, bool transpose_x, ConstStridedMatrixMap Y,
                         bool transpose_y) {
  const int64_t n = C.rows(), m = C.cols(), k = transpose_x ? X.rows() : X.cols();
  if (n == 0 || m == 0 || k == 0) return;
  const int64_t panel_count = (m + panel_width - 1) / panel_width, c_stride = C.outerStride();
  const int64_t x_row = transpose_x ? 1 : X.outerStride(), x_col = transpose_x ? X.outerStride() : 1;
  const int64_t sliver_rows = (std::min(n, row_block) + tile_rows - 1) / tile_rows * tile_rows;
  thread_local std::vector<float> panel_buffer, sliver_buffer;
  panel_buffer.resize(std::max<size_t>(panel_buffer.size(), panel_count * std::min(k, depth_block) * panel_width));
  sliver_buffer.resize(std::max<size_t>(sliver_buffer.size(), sliver_rows * std::min(k, depth_block)));
  float* panels = panel_buffer.data();               // [panel_count, kc, 8]
  float* slivers = sliver_buffer.data();             // [⌈rows / 4⌉, kc, 4]
  for (int64_t p0 = 0; p0 < k; p0 += depth_block) {  // 1. depth blocks, in order
    const int64_t kc = std::min(depth_block, k - p0);
    pack_panels(Y, transpose_y, p0, kc, m, panels);  // 2. op(Y)[p0 : p0 + kc, :] as panels
    for (int64_t i0 = 0; i0 < n; i0 += row_block) {  // 3. a block of rows of C
      const int64_t rows = std::min(row_block, n - i0);
      pack_slivers(X.data() + i0 * x_row + p0 * x_col, x_row, x_col, rows, kc, slivers);  //    op(X)[i0 :, p0 :]
      block_product(rows, m, kc, slivers, panels, C.data() + i0 * c_stride, c_stride);    // 4. C[i0 :, :] += tiles
    }
  }
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab

#else  // natively, or float64: the stand-in

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

bool simd128_available() {
  return false;
}

std::string simd128_description() {
  return "WebAssembly's alone: only the browser build (cmake --preset wasm) has it, for float32";
}

void add_simd128_product(StridedMatrixMap, ConstStridedMatrixMap, bool, ConstStridedMatrixMap, bool) {
  throw Error("the simd128 product backend is " + simd128_description());
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab

#endif
