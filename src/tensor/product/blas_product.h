// blas_product.h — C += op(X) · op(Y) by OpenBLAS's GEMM: the product backend model.gemm: blas (product.h).
//
// A well-kept BLAS is what PyTorch's own products run on, and Debian's OpenBLAS picks its kernel for the CPU it
// runs on (Haswell's on an AVX2 laptop, Cooper Lake's or Sky Lake X's on an AVX-512 one). attnlab's packed GEMM
// (packed_product.cpp) is the same idea written to be read; this is the yardstick it is measured against
// (`attnlab bench`, docs/guide/performance.md), and a backend a model may choose.
//
// blas_product.cpp calls OpenBLAS when the build found it (libopenblas-serial-dev, CMakeLists.txt: ATTNLAB_BLAS says why the serial build);
// blas_product_absent.cpp stands in otherwise and only says so: blas_available() is false and a model that asks
// for model.gemm: blas is refused with that reason before any product runs.
#pragma once

#include <string>

#include "tensor/product/packed_product.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Whether this build has OpenBLAS; blas_description() names it ("OpenBLAS 0.3.21, kernel Cooperlake") or says why
// not.
bool blas_available();
std::string blas_description();

// C += op(X) · op(Y), views as in add_packed_product. OpenBLAS runs on the calling thread alone: product.cpp
// shares a product among the threads by bands, as for the other backends.
void add_blas_product(StridedMatrixMap C, ConstStridedMatrixMap X, bool transpose_x, ConstStridedMatrixMap Y,
                      bool transpose_y);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
