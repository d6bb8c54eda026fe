// simd128_product.h — C += op(X) · op(Y) with WebAssembly's 128-bit SIMD: the product backend model.gemm: simd128,
// the browser build's fast path beside the packed GEMM (packed_product.h), which stays its reference.
//
//   C [n, m] += op(X) [n, k] · op(Y) [k, m]        op(X) = X, or Xᵀ when transpose_x (likewise Y)
//
// Why it exists: the packed GEMM's register tiles are Eigen's packets. In the browser those are Eigen's SSE
// packets, which Emscripten translates into simd128 (cmake/browser.cmake): 4 floats, but in tiles of 6 rows sized
// for a native machine's 16 registers, of which V8 keeps one for itself, and reading op(X) in place through its
// strides. (Before the browser build compiled Eigen's SSE code, a packet there was one float: scalar tiles.)
// simd128_product.cpp is the same plan — the same depth blocks, the same panels, the same order of every sum — with
// tiles of 4 rows × two 4-float simd128 vectors (<wasm_simd128.h>) and op(X) copied into slivers: 1.6 times the
// packed GEMM's speed at the toy translator's shapes in the page (browser.simd128 --time). simd128 has no fused
// multiply-add, and neither has WebAssembly's scalar code, so each step is a multiply then an add, rounded twice,
// in both: the two backends give the same bits in the browser (tests/web/simd128_browser_test.py checks it there).
//
// Only the browser build has it (compiled for -msimd128, float32): simd128_available() is false elsewhere, and a
// model that asks for model.gemm: simd128 is refused by resolve_gemm (product.cpp) with simd128_description().
#pragma once

#include <string>

#include "tensor/product/packed_product.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Whether this build has the simd128 product (the browser build, float32), and a sentence saying which or why not.
bool simd128_available();
std::string simd128_description();

// C += op(X) · op(Y), views as in add_packed_product; one thread (product.cpp shares a product out by bands).
void add_simd128_product(StridedMatrixMap C, ConstStridedMatrixMap X, bool transpose_x, ConstStridedMatrixMap Y,
                         bool transpose_y);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
