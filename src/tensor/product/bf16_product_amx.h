// bf16_product_amx.h — the tile path of the bfloat16 product (bf16_product.h), for bf16_product.cpp alone.
//
// bf16_product_amx.cpp is compiled for AMX-BF16 whatever the build's -march (a target pragma inside it), so every
// x86-64 build carries it; nothing in that file may run on a CPU without AMX-BF16 or before the operating system
// has allowed the process its tiles, and bf16_product.cpp calls it only after both (bf16_tiles_available).
#pragma once

#include <cstdint>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Asks Linux, once for the process, to let it use the tile registers (arch_prctl ARCH_REQ_XCOMP_PERM): true when
// the CPU has AMX-BF16 and AVX512_BF16, the operating system saves the tiles' state, and it said yes.
bool request_amx_tiles();

// C [n, m] += op(X) [n, k] · op(Y) [k, m] as bf16_product.h defines it, on one thread, by AMX's tdpbf16ps. Row-major
// with rows c_stride, x_stride, y_stride floats apart; op(X)[i, p] = X[i·x_stride + p], or X[p·x_stride + i] when
// transpose_x (likewise Y).
void add_bf16_product_amx(int64_t n, int64_t m, int64_t k, float* C, int64_t c_stride, const float* X, int64_t x_stride,
                          bool transpose_x, const float* Y, int64_t y_stride, bool transpose_y);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
