// blas_product_absent.cpp — the stand-in for blas_product.cpp when the build has no OpenBLAS (blas_product.h):
// it says so, and a product is never sent here (product.cpp refuses model.gemm: blas first).
#include "tensor/product/blas_product.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

bool blas_available() { return false; }

std::string blas_description() {
  return "not built in (install libopenblas-serial-dev, e.g. with tools/install-deps.sh, and build again)";
}

void add_blas_product(StridedMatrixMap, ConstStridedMatrixMap, bool, ConstStridedMatrixMap, bool) {
  throw Error("the blas product backend is " + blas_description());
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
