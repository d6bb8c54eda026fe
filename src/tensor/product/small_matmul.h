// small_matmul.h — register-tiled matrix products: the tiles every fast product of attnlab is made of. The fused
// attention kernel (kernels/scaled_dot_attention.cpp) calls it on one head of one sentence — [T, d_k] = 32 × 32 in
// the small benchmark model, too small for a packed GEMM to be worth its copies, too many for a plain loop — and
// the packed GEMM (tensor/product/packed_product.cpp) on every block of a large product.
//
//   small_matmul(n, width, depth, X, x_row, x_col, Y, y_stride, C, c_stride, accumulate)
//       C[i, j] = Σ_p X(i, p) · Y[p, j]          i < n, j < width, p < depth
//       or, with accumulate, C[i, j] += that sum (the sum formed first, then added: one more rounding)
//
//   X(i, p) = X[i · x_row + p · x_col]  — any strides, so a transposed operand costs nothing: Xᵀ is (1, row stride)
//   Y, C    row-major, rows y_stride and c_stride numbers apart; width must be a multiple of small_matmul_packet
//           (pad the rows of Y with zeros; C's padding columns then come out 0 + whatever Y's padding gives)
//
// The slow, obvious version is the triple loop
//     for (i) for (j) { real c = 0; for (p) c += X(i, p) · Y[p, j]; C[i, j] = c; }
// Here a tile of 8 rows × 2 packets of C (16 vector registers; 6 rows, 12 registers, where the CPU has only 16:
// small_matmul.cpp says why) stays in registers while p runs, each number of Y
// loaded once per tile and each X(i, p) broadcast once — instead of loading and storing a row of C for every p,
// whose store-to-load round trip was what the old attention loops waited on.
//
// Every C[i, j] is one chain of multiply-adds in p order, starting from 0 — c ← X(i, p) · Y[p, j] + c, fused
// (one rounding) where the CPU has FMA, as Eigen's own GEMM — the same whichever tile a number falls in. So the
// result depends on the numbers alone, not on where the buffers sit nor on how the tiles cut the matrix;
// tests/tensor/test_small_matmul.cpp checks it against the triple loop and against itself row by row.
#pragma once

#include <cstdint>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Numbers per vector register (16 floats / 8 doubles with AVX-512): the unit `width` is a multiple of.
int64_t small_matmul_packet();

// Rows of C per register tile: 8 with 32 vector registers (AVX-512), 6 with 16 (AVX2, SSE); small_matmul.cpp says why.
int small_matmul_tile_rows();

// round_up(n) to a multiple of small_matmul_packet(): the padded row length for Y and C.
int64_t padded_width(int64_t n);

void small_matmul(int64_t n, int64_t width, int64_t depth, const real* X, int64_t x_row, int64_t x_col,
                  const real* Y, int64_t y_stride, real* C, int64_t c_stride, bool accumulate = false);

// Y = Xᵀ for a [rows, cols] block, rows x_stride and y_stride numbers apart: Y[c, r] = X[r, c]. Whole
// P × P squares go through registers (Eigen's ptranspose: P loads, a fixed shuffle network, P stores); the ragged
// edges, number by number. The slow, obvious version is that last loop for the whole block.
void transpose_block(int64_t rows, int64_t cols, const real* X, int64_t x_stride, real* Y, int64_t y_stride);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
