// simd128_product.cpp — the packed GEMM with WebAssembly simd128 tiles (simd128_product.h says why it exists).
//
// It replaces, in the browser, the chain packed_product.cpp + small_matmul.cpp, whose tiles are Eigen packets —
// one float each there, as Eigen has no WebAssembly packets. The plan is packed_product.cpp's, step for step:
//   1. the depth k in blocks of depth_block = 256:  C += op(X)[:, p0:p0+kc] · op(Y)[p0:p0+kc, :], in order;
//   2. op(Y)'s block copied into panels of 8 columns (two simd128 vectors), [kc, 8] each, zeros past m;
//   3. the rows of C row_block = 256 at a time;
//   4. a tile of 4 rows × 8 columns of C — 8 vectors in registers — takes every p of the block: the panel's row p
//      loaded once (2 vectors), op(X)[r, p] broadcast (wasm_v128_load32_splat), then c ← c + x · y lane by lane.
//          c[r][v] = wasm_f32x4_add(c[r][v], wasm_f32x4_mul(x_r, y_v))          v = 0, 1
//      4 rows, not packed_product's 6 or 8: the browser's compiler keeps simd128 values in the CPU's 16 vector
//      registers (SSE/AVX on x86-64) and V8 keeps one of them for itself; 4 × 2 accumulators + 2 + 1 + a product
//      leave room. (Measured under node on the test machine: 6 rows were slower, 8 slower still.)
// What it saves: four multiply-adds per instruction pair instead of one — 3 to 7 times the packed GEMM's speed at
// the toy translator's shapes (web/simd128_check.cpp times them in the page).
//
// The numbers: each C[i, j] gets, per depth block, one chain c ← c + x·y in p order from 0, added to C once — the
// packed GEMM's chain. WebAssembly has no fused multiply-add (simd128 has none; relaxed-simd's is not in
// Emscripten 3.1.6's compiler), so both round the product and then the sum: the same bits, which
// tests/web/simd128_browser_test.py checks in the browser (web/simd128_check.cpp).
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

constexpr int64_t depth_block = 256;           // packed_product.cpp's blocks: the same sums
constexpr int64_t row_block = 256;
constexpr int64_t lanes = 4;                   // floats in a simd128 vector
constexpr int64_t panel_width = 2 * lanes;     // 8 columns of C per tile
constexpr int tile_rows = 4;

// One tile: C[0 … rows−1, 0 … 7] (+)= Σ_p op(X)[r, p] · panel[p, :], the tile's 2·rows vectors in registers.
template <int rows>
void tile(int64_t depth, const float* X, int64_t x_row, int64_t x_col, const float* panel, float* C,
          int64_t c_stride, bool accumulate) {
  v128_t c[rows][2];                                                    // the tile of C
  for (int r = 0; r < rows; ++r) c[r][0] = c[r][1] = wasm_f32x4_splat(0.0f);
  // The loop walks pointers (x_p: op(X)[0, p]; y: panel row p) in 32-bit steps: WebAssembly's addresses are 32 bits,
  // and 64-bit index arithmetic in the innermost loop cost a quarter of the time (measured under node).
  const float* x_p = X;
  const int x_step = static_cast<int>(x_col), x_rows = static_cast<int>(x_row);
  for (const float* y = panel; y != panel + depth * panel_width; y += panel_width, x_p += x_step) {
    const v128_t y0 = wasm_v128_load(y), y1 = wasm_v128_load(y + lanes);   // panel[p, 0:4], panel[p, 4:8]
    for (int r = 0; r < rows; ++r) {
      const v128_t x = wasm_v128_load32_splat(x_p + r * x_rows);        // op(X)[r, p] in every lane
      c[r][0] = wasm_f32x4_add(c[r][0], wasm_f32x4_mul(x, y0));        // c += op(X)[r, p] · Y[p, j]
      c[r][1] = wasm_f32x4_add(c[r][1], wasm_f32x4_mul(x, y1));
    }
  }
  for (int r = 0; r < rows; ++r) {
    for (int v = 0; v < 2; ++v) {
      float* target = C + r * c_stride + v * lanes;
      wasm_v128_store(target, accumulate ? wasm_f32x4_add(wasm_v128_load(target), c[r][v]) : c[r][v]);
    }
  }
}

// The n rows of C for one panel: tiles of tile_rows rows, then single rows.
void panel_product(int64_t n, int64_t depth, const float* X, int64_t x_row, int64_t x_col, const float* panel,
                   float* C, int64_t c_stride, bool accumulate) {
  int64_t i = 0;
  for (; i + tile_rows <= n; i += tile_rows) {
    tile<tile_rows>(depth, X + i * x_row, x_row, x_col, panel, C + i * c_stride, c_stride, accumulate);
  }
  for (; i < n; ++i) tile<1>(depth, X + i * x_row, x_row, x_col, panel, C + i * c_stride, c_stride, accumulate);
}

// op(Y)[p0 : p0 + kc, 0 : m] into panels: panel q, [kc, 8], holds the columns [8q, 8q + 8), zeros past m.
void pack_panels(ConstStridedMatrixMap Y, bool transpose_y, int64_t p0, int64_t kc, int64_t m, float* panels) {
  const int64_t count = (m + panel_width - 1) / panel_width, stride = Y.outerStride();
  std::fill(panels, panels + count * kc * panel_width, 0.0f);
  for (int64_t q = 0; q < count; ++q) {
    float* panel = panels + q * kc * panel_width;                        // [kc, 8]
    const int64_t j0 = q * panel_width, width = std::min(panel_width, m - j0);
    for (int64_t j = 0; j < width; ++j) {
      for (int64_t p = 0; p < kc; ++p) {                                 // Y [m, k] when transposed, else [k, m]
        panel[p * panel_width + j] =
            transpose_y ? Y.data()[(j0 + j) * stride + p0 + p] : Y.data()[(p0 + p) * stride + j0 + j];
      }
    }
  }
}

}  // namespace

bool simd128_available() { return true; }

std::string simd128_description() { return "WebAssembly simd128 (4 floats a vector, multiply then add)"; }

void add_simd128_product(StridedMatrixMap C, ConstStridedMatrixMap X, bool transpose_x, ConstStridedMatrixMap Y,
                         bool transpose_y) {
  const int64_t n = C.rows(), m = C.cols(), k = transpose_x ? X.rows() : X.cols();
  if (n == 0 || m == 0 || k == 0) return;
  const int64_t full_panels = m / panel_width, panel_count = (m + panel_width - 1) / panel_width;
  const int64_t c_stride = C.outerStride();
  const int64_t x_row = transpose_x ? 1 : X.outerStride(), x_col = transpose_x ? X.outerStride() : 1;
  thread_local std::vector<float> panel_buffer, edge_buffer;
  panel_buffer.resize(std::max<size_t>(panel_buffer.size(), panel_count * std::min(k, depth_block) * panel_width));
  edge_buffer.resize(std::max<size_t>(edge_buffer.size(), std::min(n, row_block) * panel_width));
  float* panels = panel_buffer.data();                                  // [panel_count, kc, 8]
  float* edge = edge_buffer.data();                                     // [rows, 8]
  for (int64_t p0 = 0; p0 < k; p0 += depth_block) {                     // 1. depth blocks, in order
    const int64_t kc = std::min(depth_block, k - p0);
    pack_panels(Y, transpose_y, p0, kc, m, panels);                     // 2. op(Y)[p0 : p0 + kc, :] as panels
    for (int64_t i0 = 0; i0 < n; i0 += row_block) {                     // 3. a block of rows of C
      const int64_t rows = std::min(row_block, n - i0);
      const float* x = X.data() + i0 * x_row + p0 * x_col;              // op(X)[i0 :, p0 :]
      float* c = C.data() + i0 * c_stride;                              // C[i0 :, 0 :]
      for (int64_t q = 0; q < full_panels; ++q) {                       // 4. C[i0 :, 8q : 8q + 8] += x · panel
        panel_product(rows, kc, x, x_row, x_col, panels + q * kc * panel_width, c + q * panel_width, c_stride, true);
      }
      if (full_panels < panel_count) {                                  // the last, narrower panel: into scratch,
        const int64_t j0 = full_panels * panel_width, width = m - j0;   // then the columns C has are added
        panel_product(rows, kc, x, x_row, x_col, panels + full_panels * kc * panel_width, edge, panel_width, false);
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < width; ++j) c[i * c_stride + j0 + j] += edge[i * panel_width + j];
        }
      }
    }
  }
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab

#else  // natively, or float64: the stand-in

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

bool simd128_available() { return false; }

std::string simd128_description() {
  return "WebAssembly's alone: only the browser build (cmake --preset wasm) has it, for float32";
}

void add_simd128_product(StridedMatrixMap, ConstStridedMatrixMap, bool, ConstStridedMatrixMap, bool) {
  throw Error("the simd128 product backend is " + simd128_description());
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab

#endif
