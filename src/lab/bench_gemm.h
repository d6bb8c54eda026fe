// bench_gemm.h — each product backend's speed at the model's own shapes: is the GEMM under the fused path the
// best this CPU can do? (`attnlab bench`, its "GEMM at the model's shapes" lines)
//
// A training step's large products are the Linear layers' and the output layer's, three each (kernels/
// fused_linear.cpp): with rows = B·T positions, a layer W [out, in] computes
//     forward  y  [rows, out] += x [rows, in] · Wᵀ       backward  ∂x [rows, in] += G [rows, out] · W
//                                                                  ∂W [out, in]  += Gᵀ · x      (depth: rows)
// — 3 · 2·rows·in·out operations. The shapes of the model of a config, each counted as often as a step runs it:
//     d → d       (the attention projections: 4 per self-attention, 4 per cross-attention)
//     d → d_ff, d_ff → d   (the feed-forward network, once per layer each)
//     d → V       (the output layer, in chunks of rows as kernels/linear_cross_entropy.cpp cuts it)
// Each backend (tensor/product/product.h) runs the same list through add_product — the threads shared out as in training
// — backends taking turns, repeat after repeat; a shape's time is the median of its repeats, and a backend's
// GFLOP/s is all the step's operations over the sum of its shapes' times.
#pragma once

#include <string>
#include <vector>

#include "model/config.h"
#include "tensor/product/product.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct GemmShape {
  std::string name;     // "d->d_ff": in -> out
  int64_t rows = 0;     // positions per product
  int64_t in = 0, out = 0;
  int64_t count = 0;    // how many such layers (or output chunks) one training step runs
};

// The products of one training step of `model` on B sentences of T tokens each side.
std::vector<GemmShape> model_gemm_shapes(const ModelConfig& model, int64_t B, int64_t T);

struct GemmSpeed {
  Gemm gemm = Gemm::packed;
  double gflops_per_second = 0;         // over the whole list, weighted by count
  std::vector<double> shape_gflops;     // per shape, in the list's order
};

// Every backend this build has (eigen, packed, and blas with OpenBLAS), timed over `shapes`, `repeats` times.
std::vector<GemmSpeed> measure_gemm_backends(const std::vector<GemmShape>& shapes, int repeats);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
