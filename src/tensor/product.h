// product.h — C += op(X) · op(Y) on plain matrices: the one matrix-product kernel that matmul, linear and
// linear_cross_entropy are made of (src/autograd/ops/matmul.cpp explains its three routes and why each one gives
// the same bits wherever the numbers sit in memory). No graph: ops call it inside their forward and backward.
#pragma once

#include "tensor/tensor.h"

namespace attnlab::inline ATTNLAB_PRECISION {

// C [n, m] += op(X) · op(Y), where op(X) is X, or Xᵀ when transpose_x (likewise Y); op(X) [n, k], op(Y) [k, m].
void add_product(MatrixMap C, ConstMatrixMap X, bool transpose_x, ConstMatrixMap Y, bool transpose_y);

// Which GEMM the large products run on: attnlab's own (tensor/packed_product.cpp, the default) or Eigen's, the
// reference it is checked against. One choice for the whole process; Module::use_kernels sets it with the model's
// path (model.kernels: fused → packed, reference → eigen). Both give the same numbers to float rounding.
enum class ProductKernel { packed, eigen };
void use_product_kernel(ProductKernel kernel);

}  // namespace attnlab::inline ATTNLAB_PRECISION
