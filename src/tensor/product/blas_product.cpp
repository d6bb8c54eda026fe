// blas_product.cpp — the product backend model.gemm: blas, on OpenBLAS (see blas_product.h).
//
// One call: C ← 1 · op(X) · op(Y) + 1 · C, row-major, each operand with its row stride (BLAS's "leading
// dimension"). OpenBLAS packs both operands into its own blocks, as the packed GEMM packs Y, and walks them by
// index, so the result does not depend on where the numbers sit; its blocks follow the sizes it is given, so — as
// with Eigen's GEMM — the bits may depend on how product.cpp cuts C into bands, and so on the thread count
// (tests/tensor/test_packed_product.cpp says which backends keep which bits).
#include "tensor/product/blas_product.h"

#include <cblas.h>

#include <mutex>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// OpenBLAS starts a pool of its own threads; attnlab shares the work among its OpenMP threads itself
// (product.cpp), so OpenBLAS is told once to run every call on the thread that makes it.
void use_one_blas_thread() {
  static const bool once = (openblas_set_num_threads(1), true);
  (void)once;
}

// C ← 1 · op(A) · op(B) + 1 · C in the precision of the build: sgemm for float, dgemm for double.
[[maybe_unused]] void gemm(CBLAS_TRANSPOSE op_a, CBLAS_TRANSPOSE op_b, int n, int m, int k, const float* A, int lda, const float* B,
          int ldb, float* C, int ldc) {
  cblas_sgemm(CblasRowMajor, op_a, op_b, n, m, k, 1.0f, A, lda, B, ldb, 1.0f, C, ldc);
}
[[maybe_unused]] void gemm(CBLAS_TRANSPOSE op_a, CBLAS_TRANSPOSE op_b, int n, int m, int k, const double* A, int lda, const double* B,
          int ldb, double* C, int ldc) {
  cblas_dgemm(CblasRowMajor, op_a, op_b, n, m, k, 1.0, A, lda, B, ldb, 1.0, C, ldc);
}

}  // namespace

bool blas_available() { return true; }

std::string blas_description() {
  use_one_blas_thread();
  const std::string config = openblas_get_config();                   // "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH …"
  const size_t version_end = config.find(' ', config.find(' ') + 1);  // after "OpenBLAS 0.3.21"
  return config.substr(0, version_end) + ", " + openblas_get_corename() + " kernel";
}

// Debian's serial OpenBLAS (0.3.21), called on product.cpp's bands of one product at the same time, gave wrong
// numbers (tests/tensor/test_packed_product.cpp failed in 9 runs of 12, far beyond rounding). So product.cpp does
// not cut a product on OpenBLAS into bands, and the calls take turns here as well — a precaution: eight
// independent products at once on four threads did not go wrong without it, but the library says nothing of
// being safe for that, and serve's workers make such calls.
void add_blas_product(StridedMatrixMap C, ConstStridedMatrixMap X, bool transpose_x, ConstStridedMatrixMap Y,
                      bool transpose_y) {
  static std::mutex blas_calls;
  const std::lock_guard<std::mutex> one_call_at_a_time(blas_calls);
  use_one_blas_thread();
  const int n = static_cast<int>(C.rows()), m = static_cast<int>(C.cols());
  const int k = static_cast<int>(transpose_x ? X.rows() : X.cols());
  if (n == 0 || m == 0 || k == 0) return;
  const CBLAS_TRANSPOSE op_x = transpose_x ? CblasTrans : CblasNoTrans, op_y = transpose_y ? CblasTrans : CblasNoTrans;
  gemm(op_x, op_y, n, m, k, X.data(), static_cast<int>(X.outerStride()), Y.data(), static_cast<int>(Y.outerStride()),
       C.data(), static_cast<int>(C.outerStride()));
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
