// small_matmul.cpp — register-tiled small matrix products (see small_matmul.h).
#include "autograd/ops/small_matmul.h"

#include <Eigen/Core>

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

namespace vec = Eigen::internal;
using Packet = vec::packet_traits<real>::type;                         // 16 floats / 8 doubles with AVX-512
constexpr int64_t P = vec::packet_traits<real>::size;               // numbers per Packet

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

// The rows [i, n) of C for the columns [j, j + packets·P): tiles of 4 rows, then single rows.
template <int packets>
void column_panel(int64_t n, int64_t depth, const real* X, int64_t x_row, int64_t x_col, const real* Y,
                  int64_t y_stride, real* C, int64_t c_stride, bool accumulate) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    tile<4, packets>(depth, X + i * x_row, x_row, x_col, Y, y_stride, C + i * c_stride, c_stride, accumulate);
  }
  for (; i < n; ++i) tile<1, packets>(depth, X + i * x_row, x_row, x_col, Y, y_stride, C + i * c_stride, c_stride, accumulate);
}

}  // namespace

int64_t small_matmul_packet() { return P; }

int64_t padded_width(int64_t n) { return (n + P - 1) / P * P; }

void small_matmul(int64_t n, int64_t width, int64_t depth, const real* X, int64_t x_row, int64_t x_col,
                  const real* Y, int64_t y_stride, real* C, int64_t c_stride, bool accumulate) {
  int64_t j = 0;                                                        // columns in panels of 2 packets, then 1
  for (; j + 2 * P <= width; j += 2 * P) {
    column_panel<2>(n, depth, X, x_row, x_col, Y + j, y_stride, C + j, c_stride, accumulate);
  }
  for (; j < width; j += P) column_panel<1>(n, depth, X, x_row, x_col, Y + j, y_stride, C + j, c_stride, accumulate);
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
