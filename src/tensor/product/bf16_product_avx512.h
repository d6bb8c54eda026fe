// bf16_product_avx512.h — the fast path of the bfloat16 product (bf16_product.h), for bf16_product.cpp alone.
//
// bf16_product_avx512.cpp is compiled for AVX512_BF16 whatever the build's -march (a target pragma inside it),
// so the x86-64-v3 build carries it too; nothing in that file may run on a CPU without AVX512_BF16, and
// bf16_product.cpp calls it only after asking the CPU (bf16_fast_available).
#pragma once

#include <cstdint>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// C [n, m] += op(X) [n, k] · op(Y) [k, m] as bf16_product.h defines it, on one thread. Row-major with rows
// c_stride, x_stride, y_stride floats apart; op(X)[i, p] = X[i·x_stride + p], or X[p·x_stride + i] when
// transpose_x (likewise Y).
void add_bf16_product_avx512(int64_t n, int64_t m, int64_t k, float* C, int64_t c_stride, const float* X,
                             int64_t x_stride, bool transpose_x, const float* Y, int64_t y_stride, bool transpose_y);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
