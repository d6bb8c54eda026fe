// packed_product.h — C += op(X) · op(Y) for large matrices by packed blocks: attnlab's own GEMM, the kernel the
// large products of a training step run on (tensor/product/product.cpp routes them here; Eigen's GEMM is the reference it
// is checked against, and `model.path: paper` selects it at run time).
//
//   C [n, m] += op(X) [n, k] · op(Y) [k, m]        op(X) = X, or Xᵀ when transpose_x (likewise Y)
//
// X, Y and C are row-major views whose rows may lie further apart than their width (the strided maps below), so
// a band of rows or columns of a larger matrix is passed without copying. One thread: tensor/product/product.cpp shares a
// product among the threads by bands and calls this once per band.
#pragma once

#include "tensor/tensor.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

using StridedMatrixMap = Eigen::Map<Matrix, 0, Eigen::OuterStride<>>;
using ConstStridedMatrixMap = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>;

// X and Y as stored: X [n, k] (or [k, n] when transpose_x), Y [k, m] (or [m, k] when transpose_y).
void add_packed_product(StridedMatrixMap C, ConstStridedMatrixMap X, bool transpose_x, ConstStridedMatrixMap Y,
                        bool transpose_y);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
