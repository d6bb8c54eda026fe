// product.h — C += op(X) · op(Y) on plain matrices: the one matrix-product kernel that matmul, linear and
// linear_cross_entropy are made of (src/autograd/ops/matmul.cpp explains its three routes and why each one gives
// the same bits wherever the numbers sit in memory). No graph: ops call it inside their forward and backward.
#pragma once

#include <string>
#include <vector>

#include "tensor/product/bf16_product.h"
#include "tensor/tensor.h"
#include "util/choice.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Which GEMM a large product runs on; the caller says (a model keeps its choice, model.gemm), so nothing about it
// is process-wide:
//   eigen      Eigen's, one line C += X · Y: the plain GEMM, what the matmul op of chapter 2 uses (the paper's path)
//   packed     attnlab's own (tensor/product/packed_product.cpp), the teaching kernel of the fused path
//   blas       OpenBLAS's (tensor/product/blas_product.h), when the build has it: what PyTorch's products run on
//   simd128    the packed GEMM with WebAssembly simd128 tiles (tensor/product/simd128_product.h): the browser build's
//   automatic  (model.gemm: auto) the fastest of them in this build: resolve_gemm says which, and why
// All give the same numbers to float rounding (tests/tensor/test_packed_product.cpp). Small and thin products
// take the same route whichever is asked (product.cpp says why).
enum class Gemm { eigen, packed, blas, simd128, automatic };

// The backend a choice stands for: automatic → simd128 in the browser build, else packed; the others as they are.
// Throws attnlab::Error for blas in a build without OpenBLAS, or simd128 outside the browser build, naming `key`
// and how to get it.
Gemm resolve_gemm(Gemm gemm, const std::string& key = "model.gemm");
const std::vector<std::string>& choice_names(Gemm);      // "eigen", "packed", "blas", "simd128", "auto": model.gemm's
std::vector<Gemm> built_gemms();                         // eigen, packed, and blas or simd128 when the build has it

// C [n, m] += op(X) · op(Y), where op(X) is X, or Xᵀ when transpose_x (likewise Y); op(X) [n, k], op(Y) [k, m].
// With a precision other than float32 (model.precision) the operands are rounded to bfloat16 and the product is
// bf16_product.h's, whatever `gemm` says; the float64 build refuses that (its numbers are the reference).
void add_product(MatrixMap C, ConstMatrixMap X, bool transpose_x, ConstMatrixMap Y, bool transpose_y,
                 Gemm gemm = Gemm::eigen, Precision precision = Precision::float32);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
