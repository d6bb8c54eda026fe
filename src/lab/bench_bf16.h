// bench_bf16.h — the bfloat16 product's speed at the model's own shapes, beside attnlab's float32 packed GEMM:
// what the products of a training step gain from bf16 (`attnlab bench`, its "bf16" line): the kernel alone
// (tensor/product/bf16_product.h), where the step's bench line has the rest of the step too.
//
// The shapes and the three products of a Linear layer per shape are bench_gemm.h's (forward x · Wᵀ, ∂x = G · W,
// ∂W = Gᵀ · x). Each repeat times, shape by shape, the float32 packed product (add_product, Gemm::packed) and then
// the bf16 product on the path model.precision: bfloat16 takes (fastest_bf16_path: AMX tiles, else vdpbf16ps) on
// the same operands, so the two take turns under the same load; a shape's time is the median of its repeats, and a
// product's GFLOP/s is all the step's operations over the sum of its shapes' times.
#pragma once

#include <string>
#include <vector>

#include "lab/bench_gemm.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct Bf16Speed {
  bool measured = false;                // false when the CPU has no AVX512_BF16 (support says so)
  std::string support;                  // bf16_support(): "AMX-BF16 (tdpbf16ps tiles)", "AVX512_BF16 (vdpbf16ps)", …
  GemmSpeed bf16;                       // the bf16 product on the model's path (its gemm field unused)
  GemmSpeed packed;                     // the float32 packed GEMM, timed in turn with it
};

// Both products over `shapes`, `repeats` times, on the threads the process uses (tensor/parallel.h).
Bf16Speed measure_bf16_product(const std::vector<GemmShape>& shapes, int repeats);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
