// packed_product.cpp — a GEMM in the manner of Goto and van de Geijn ("Anatomy of High-Performance Matrix
// Multiplication", 2008): the product cut into blocks that fit the caches, one operand copied ("packed") into the
// order the register tiles read it.
//
// The definition is three loops, C[i, j] += Σ_p op(X)[i, p] · op(Y)[p, j]. A CPU core with AVX-512 can do two
// 16-wide multiply-adds per cycle, but only if the numbers are already in its registers or its nearest cache; the
// plain loops spend their time waiting for memory. So:
//   1. the depth k is cut into blocks of depth_block = 256:  C += op(X)[:, p0:p0+kc] · op(Y)[p0:p0+kc, :], in order;
//   2. for each depth block, op(Y)'s rows p0 … p0+kc are copied into panels of panel_width columns, each panel
//      [kc, panel_width] contiguous (padded with zeros past m) — 32 KB for floats, which stays in the core's
//      fastest cache (L1) while every row of C passes over it. Copying is also where a transposed Y (a weight W
//      stored [m, k], as Linear keeps it) becomes row-major: whole squares go through registers
//      (transpose_block), so the tiles never read Y with a stride;
//   3. the rows of C are taken row_block = 256 at a time, so that their slice of op(X), [256, kc] = 256 KB, stays
//      in the core's second cache (L2) while the panels go by;
//   4. each (row block, panel) is one small_matmul call (tensor/product/small_matmul.h): tiles of 8 rows × 2 vector registers
//      of columns (32 floats with AVX-512; 6 rows × 16 floats with AVX2, whose register file is half as large)
//      held in registers, op(X)[i, p] broadcast, the panel's row p loaded, one multiply-add per pair.
// op(X) is not copied: small_matmul reads it through strides, so Xᵀ costs nothing.
//
// The numbers: every C[i, j] gets Σ over one depth block as one chain of multiply-adds in p order, added to C
// once per block, blocks in order. Nothing depends on where the numbers sit in memory, on which tile or panel a
// number falls in, or on how product.cpp cuts C into bands among the threads — only on the depth blocks, which are
// fixed. (Eigen's GEMM, the reference, orders its sums by its own blocks; the two agree to float rounding.)
// tests/tensor/test_packed_product.cpp checks the definition, every transpose, the ragged edges and those invariances.
#include "tensor/product/packed_product.h"

#include <algorithm>
#include <vector>

#include "tensor/product/small_matmul.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr int64_t depth_block = 256;   // kc: rows of op(Y) per panel
constexpr int64_t row_block = 256;     // rows of C (and of op(X)) per pass over the panels

// Panels are two vector registers wide (32 floats, 16 doubles): small_matmul's widest tile.
int64_t panel_width() { return 2 * small_matmul_packet(); }

// Scratch memory of the calling thread, grown to the largest product seen and reused: a warm training step
// allocates nothing here.
real* scratch(std::vector<real>& buffer, int64_t size) {
  if (static_cast<int64_t>(buffer.size()) < size) buffer.resize(static_cast<size_t>(size));
  return buffer.data();
}

// Copies op(Y)[p0 : p0 + kc, 0 : m] into panels: panel q holds the columns [q·w, q·w + w), row p of the panel at
// panels + (q·kc + p)·w. Columns past m are set to 0: the tiles compute them too and their sums are thrown away,
// so they must be plain numbers, not whatever the buffer held (a NaN or a denormal there would cost time).
void pack_panels(ConstStridedMatrixMap Y, bool transpose_y, int64_t p0, int64_t kc, int64_t m, real* panels) {
  const int64_t w = panel_width(), count = (m + w - 1) / w, stride = Y.outerStride();
  for (int64_t q = 0; q < count; ++q) {
    real* panel = panels + q * kc * w;                                  // [kc, w]
    const int64_t j0 = q * w, width = std::min(w, m - j0);             // columns j0 … j0 + width − 1 of op(Y)
    if (transpose_y) {                                                  // Y [m, k]: panel[p, j] = Y[j0 + j, p0 + p]
      transpose_block(width, kc, Y.data() + j0 * stride + p0, stride, panel, w);
    } else {                                                            // Y [k, m]: panel[p, j] = Y[p0 + p, j0 + j]
      for (int64_t p = 0; p < kc; ++p) {
        const real* row = Y.data() + (p0 + p) * stride + j0;
        std::copy(row, row + width, panel + p * w);
      }
    }
    if (width < w) {
      for (int64_t p = 0; p < kc; ++p) std::fill(panel + p * w + width, panel + (p + 1) * w, real(0));
    }
  }
}

}  // namespace

void add_packed_product(StridedMatrixMap C, ConstStridedMatrixMap X, bool transpose_x, ConstStridedMatrixMap Y,
                        bool transpose_y) {
  const int64_t n = C.rows(), m = C.cols(), k = transpose_x ? X.rows() : X.cols();
  if (n == 0 || m == 0 || k == 0) return;
  const int64_t w = panel_width(), full_panels = m / w, panel_count = (m + w - 1) / w, c_stride = C.outerStride();
  // op(X)[i, p] = X[i · x_row + p · x_col]
  const int64_t x_row = transpose_x ? 1 : X.outerStride(), x_col = transpose_x ? X.outerStride() : 1;
  thread_local std::vector<real> panel_buffer, edge_buffer;
  real* panels = scratch(panel_buffer, panel_count * std::min(k, depth_block) * w);   // [panel_count, kc, w]
  real* edge = scratch(edge_buffer, std::min(n, row_block) * w);                      // [rows, w]
  for (int64_t p0 = 0; p0 < k; p0 += depth_block) {                     // 1. depth blocks, in order
    const int64_t kc = std::min(depth_block, k - p0);
    pack_panels(Y, transpose_y, p0, kc, m, panels);                     // 2. op(Y)[p0 : p0 + kc, :] as panels
    for (int64_t i0 = 0; i0 < n; i0 += row_block) {                     // 3. a block of rows of C
      const int64_t rows = std::min(row_block, n - i0);
      const real* x = X.data() + i0 * x_row + p0 * x_col;               // op(X)[i0 :, p0 :]
      real* c = C.data() + i0 * c_stride;                               // C[i0 :, 0 :]
      for (int64_t q = 0; q < full_panels; ++q) {                       // 4. C[i0 :, q·w : q·w + w] += x · panel
        small_matmul(rows, w, kc, x, x_row, x_col, panels + q * kc * w, w, c + q * w, c_stride, true);
      }
      if (full_panels < panel_count) {                                  // the last, narrower panel: its sum into
        const int64_t j0 = full_panels * w, width = m - j0;             // scratch, then the columns C has are added
        small_matmul(rows, w, kc, x, x_row, x_col, panels + full_panels * kc * w, w, edge, w, false);
        for (int64_t i = 0; i < rows; ++i) {
          for (int64_t j = 0; j < width; ++j) c[i * c_stride + j0 + j] += edge[i * w + j];
        }
      }
    }
  }
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
