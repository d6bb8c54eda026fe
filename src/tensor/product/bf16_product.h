// bf16_product.h — C += op(X) · op(Y) with X and Y rounded to bfloat16 and every sum kept in float32: the product
// of mixed-precision training (PyTorch's autocast on a CPU, oneDNN), where the operands lose 16 bits of mantissa
// (tensor/bfloat16.h) and the CPU multiplies twice as many numbers per instruction as in float32.
//
//   C [n, m] += Σ_p bf16(op(X)[i, p]) · bf16(op(Y)[p, j])         op(X) [n, k], op(Y) [k, m]; C, X, Y float32
//
// The products are exact (two 8-bit significands make a 16-bit one, which float32's 24 bits hold); only the
// sums round. The sum runs as the instruction of the fast path runs it — p in pairs (2t, 2t+1), the odd term first:
//
//     c ← C[i, j];   for t:  c ← c + x[2t+1]·y[2t+1];  c ← c + x[2t]·y[2t]   (each + rounded to nearest even)
//     C[i, j] ← c                                                           (an odd k gets a zero last partner)
//
// Two paths, one truth:
//   emulated  the line above as plain loops on the rounded floats: runs on every CPU, slowly — for the tests and
//             for learners (it is not fast, and nothing calls it fast)
//   fast      AVX512_BF16's vdpbf16ps (bf16_product_avx512.cpp): 16 lanes × one pair each per instruction, the
//             sum exactly as above, register tiles as in small_matmul.cpp; chosen only where the CPU has it
//   tiles     AMX-BF16's tdpbf16ps (bf16_product_amx.cpp): a 16 × 16 block of C takes 16 × 32 products per
//             instruction; on Xeons from Sapphire Rapids on, where vdpbf16ps is no faster than float32, the one
//             path that is. The same rounded operands; the order of the sum inside an instruction is the
//             hardware's, so its bits may differ from the others' by float32 sums' rounding (that file says how much)
// What the fast path promises: the same bits as the emulated path whenever no subnormal number appears (as an
// operand, a product or a partial sum) — vdpbf16ps treats subnormal inputs as zero and flushes subnormal results
// to zero (DAZ, FTZ, whatever MXCSR says), and it rounds the operands with vcvtneps2bf16, which also reads a
// subnormal float as zero. Where subnormals do appear the two differ by less than 2^−126 per step of the sum.
// tests/tensor/test_bf16_product.cpp checks the bits, and the distance to the float32 product:
//     |C_bf16 − C_f32| ≤ (2u + u² + 2γ_k) · Σ_p |op(X)[i, p] · op(Y)[p, j]|      (C zero before)
// u = 2^−8 (bfloat16.h) for each operand's rounding, γ_k = k·2^−24 / (1 − k·2^−24) for each product's sums of k
// terms in float32 (Higham, "Accuracy and Stability of Numerical Algorithms", §3.1): the rounding of the operands
// dominates unless k is in the tens of thousands.
//
// X, Y and C are plain row-major float32 matrices in either build (the float64 build has the product too; its
// numbers are float32 all the same). The threads: a product with enough work is cut into bands of C's rows or
// columns, one per thread, as tensor/product/product.cpp does; each C[i, j] is one chain whatever the cut, so the
// bits do not depend on the thread count.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

using FloatMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using FloatMatrixMap = Eigen::Map<FloatMatrix>;
using ConstFloatMatrixMap = Eigen::Map<const FloatMatrix>;

enum class Bf16Path { emulated, fast, tiles };
const std::vector<std::string>& choice_names(Bf16Path);  // "emulated", "fast", "tiles"

// Whether this CPU (not the build: any x86-64 build carries the fast path) has AVX512_BF16, and in words:
// "AVX512_BF16 (vdpbf16ps)", or what is missing. The environment variable ATTNLAB_NO_AVX512_BF16=1 makes a CPU
// that has it count as one without it (to see what such a CPU is told).
bool bf16_fast_available();
std::string bf16_support();

// Whether the tile path runs here: AMX-BF16, Linux's leave to use the tiles (asked for on the first call), and
// ATTNLAB_NO_AMX not set (=1 leaves the tiles unused, to compare the paths on one machine). bf16_support() then says
// "AMX-BF16 (tdpbf16ps tiles)".
bool bf16_tiles_available();

// The path model.precision: bfloat16 runs on: tiles where they are available, else fast, else emulated.
Bf16Path fastest_bf16_path();

// The number format of a model's products (model.precision, configs/README.md): what add_product (product.h) does
// with its operands before it multiplies them. Sums, weights, gradients and Adam's moments stay float32 in all three.
//   float32             the products as they are (the plain path, and the default)
//   bfloat16            operands rounded to bfloat16, sums in float32, on the fast path (AVX512_BF16): twice the
//                       float32 rate where the CPU has it; refused where it has not (resolve_precision)
//   bfloat16_emulated   the same numbers on the emulated path, on any CPU, many times slower than float32: for
//                       the tests and for learners who want to see what rounding does to training
enum class Precision { float32, bfloat16, bfloat16_emulated };
const std::vector<std::string>& choice_names(Precision);  // "float32", "bfloat16", "bfloat16-emulated"

// The precision as it can run here: float32 and bfloat16_emulated as they are; bfloat16 when the CPU has
// AVX512_BF16, else attnlab::Error naming `key`, what the CPU lacks and the two ways on.
Precision resolve_precision(Precision precision, const std::string& key = "model.precision");

// C += op(X) · op(Y) with the operands rounded to bfloat16 (above). Throws attnlab::Error when the shapes do not
// fit together, for Bf16Path::fast on a CPU without AVX512_BF16, or for Bf16Path::tiles without the tiles.
void add_bf16_product(FloatMatrixMap C, ConstFloatMatrixMap X, bool transpose_x, ConstFloatMatrixMap Y,
                      bool transpose_y, Bf16Path path);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
