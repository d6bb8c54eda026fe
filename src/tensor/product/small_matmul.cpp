// small_matmul.cpp — register-tiled small matrix products (see small_matmul.h).
#include "tensor/product/small_matmul.h"

#include <Eigen/Core>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

namespace vec = Eigen::internal;
using Packet = vec::packet_traits<real>::type;                         // 16 floats / 8 doubles with AVX-512
constexpr int64_t P = vec::packet_traits<real>::size;               // numbers per Packet

// P packets, the unit Eigen's ptranspose transposes. (GCC notes that the vector type's alignment attribute does not
// carry into the template argument — harmless here, as inside Eigen's own kernels, where the note is not shown.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
using Square = vec::PacketBlock<Packet, static_cast<int>(P)>;
#pragma GCC diagnostic pop

// One tile: C[0 … rows−1, 0 … packets·P − 1] = Σ_p X(r, p) · Y[p, :], the tile's numbers in registers.
template <int rows, int packets>
void tile(int64_t depth, const real* X, int64_t x_row, int64_t x_col, const real* Y, int64_t y_stride, real* C,
          int64_t c_stride, bool accumulate) {
  Packet c[rows][packets];                                              // the tile of C
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < packets; ++k) c[r][k] = vec::pset1<Packet>(real(0));
  for (int64_t p = 0; p < depth; ++p) {
    Packet y[packets];                                                  // Y[p, tile's columns]
    for (int k = 0; k < packets; ++k) y[k] = vec::ploadu<Packet>(Y + p * y_stride + k * P);
    for (int r = 0; r < rows; ++r) {
      const Packet x = vec::pset1<Packet>(X[r * x_row + p * x_col]);   // X(r, p) in every lane
      for (int k = 0; k < packets; ++k) c[r][k] = vec::pmadd(x, y[k], c[r][k]);  // c += X(r, p) · Y[p, j]
    }
  }
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < packets; ++k) {
      real* target = C + r * c_stride + k * P;
      vec::pstoreu(target, accumulate ? vec::padd(vec::ploadu<Packet>(target), c[r][k]) : c[r][k]);
    }
}

// Rows per tile, chosen here, once, for the register file of the instruction set the build targets
// (CMakeLists.txt, ATTNLAB_ARCH). A tile of `rows` × 2 packets of C needs 2·rows accumulators, plus 2 registers
// for Y's packets and 1 for the broadcast X(r, p), all live at once in the innermost loop:
//   32 registers (AVX-512, x86-64-v4 or native on such a CPU): 8 rows → 16 + 3 = 19. Measured on a 32 × 32 × 32
//      product: 1.5 × the speed of 4-row tiles, whose loads of Y outnumber their multiply-adds.
//   16 registers (AVX2 + FMA, x86-64-v3; SSE, x86-64-v2): 6 rows → 12 + 3 = 15, the classic AVX2 tile of
//      6 × 16 floats. 8 rows would need 19 and spill to the stack inside the loop (issue 34: the packed GEMM ran
//      at 32–39 GFLOP/s on one AVX2 core with them, where OpenBLAS runs at 130).
// The tile's shape changes which numbers share a tile, never the order of any sum, so every width gives the same
// bits for the same instruction set (tests/tensor/test_small_matmul.cpp runs on every width the build targets).
constexpr int tile_rows = EIGEN_ARCH_DEFAULT_NUMBER_OF_REGISTERS >= 32 ? 8 : 6;
static_assert(2 * tile_rows + 3 <= EIGEN_ARCH_DEFAULT_NUMBER_OF_REGISTERS, "the tile must fit the register file");

// The rows [i, n) of C for the columns [j, j + packets·P): tiles of tile_rows rows, then of 4, then single rows.
template <int packets>
void column_panel(int64_t n, int64_t depth, const real* X, int64_t x_row, int64_t x_col, const real* Y,
                  int64_t y_stride, real* C, int64_t c_stride, bool accumulate) {
  int64_t i = 0;
  for (; i + tile_rows <= n; i += tile_rows) {
    tile<tile_rows, packets>(depth, X + i * x_row, x_row, x_col, Y, y_stride, C + i * c_stride, c_stride, accumulate);
  }
  for (; i + 4 <= n; i += 4) {
    tile<4, packets>(depth, X + i * x_row, x_row, x_col, Y, y_stride, C + i * c_stride, c_stride, accumulate);
  }
  for (; i < n; ++i) {
    tile<1, packets>(depth, X + i * x_row, x_row, x_col, Y, y_stride, C + i * c_stride, c_stride, accumulate);
  }
}

}  // namespace

int64_t small_matmul_packet() { return P; }

int small_matmul_tile_rows() { return tile_rows; }

int64_t padded_width(int64_t n) { return (n + P - 1) / P * P; }

void small_matmul(int64_t n, int64_t width, int64_t depth, const real* X, int64_t x_row, int64_t x_col,
                  const real* Y, int64_t y_stride, real* C, int64_t c_stride, bool accumulate) {
  int64_t j = 0;                                                        // columns in panels of 2 packets, then 1
  for (; j + 2 * P <= width; j += 2 * P) {
    column_panel<2>(n, depth, X, x_row, x_col, Y + j, y_stride, C + j, c_stride, accumulate);
  }
  for (; j < width; j += P) column_panel<1>(n, depth, X, x_row, x_col, Y + j, y_stride, C + j, c_stride, accumulate);
}

void transpose_block(int64_t rows, int64_t cols, const real* X, int64_t x_stride, real* Y, int64_t y_stride) {
  const int64_t full_rows = rows / P * P, full_cols = cols / P * P;
  for (int64_t r0 = 0; r0 < full_rows; r0 += P) {
    for (int64_t c0 = 0; c0 < full_cols; c0 += P) {                     // one P × P square
      Square square;
      for (int64_t k = 0; k < P; ++k) square.packet[k] = vec::ploadu<Packet>(X + (r0 + k) * x_stride + c0);
      vec::ptranspose(square);                                          // packet k now holds column c0 + k
      for (int64_t k = 0; k < P; ++k) vec::pstoreu(Y + (c0 + k) * y_stride + r0, square.packet[k]);
    }
  }
  for (int64_t r = 0; r < rows; ++r) {                                  // the edges: columns past full_cols, and
    const int64_t first_col = r < full_rows ? full_cols : 0;            // every column of the rows past full_rows
    for (int64_t c = first_col; c < cols; ++c) Y[c * y_stride + r] = X[r * x_stride + c];
  }
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
