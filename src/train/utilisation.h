// utilisation.h — model FLOP utilisation (MFU): how much of the machine's matrix speed a training step uses.
//
// nanoGPT's estimate_mfu is the anchor: the step's floating-point work, counted analytically from the shapes, per
// second of the step, over the peak the machine can reach:
//     MFU = (step FLOPs / step seconds) / peak FLOP/s
// Counted (matrix products only — softmax, LayerNorm, embeddings and Adam are O(tokens · d) and left out). A
// product [n, k] · [k, m] is 2·n·k·m floating-point operations. With B sentences, S source and T target tokens,
// width d, FFN width d_ff, vocabulary V, N_enc and N_dec layers:
//     encoder layer   B·S · (8d² + 4·S·d + 4·d·d_ff)        Q, K, V, O projections; q·kᵀ and a·v; the FFN
//     decoder layer   B·T · (8d² + 4·T·d + 4·d·d_ff)        self-attention (the full T×T scores are computed)
//                   + B·T · 4d² + B·S · 4d² + B·T · 4·S·d   cross-attention: Q, O on the target, K, V on the memory
//                                                           (none in a decoder-only language model: S = 0)
//     output          B·T · 2·d·V
//     forward F = N_enc · encoder + N_dec · decoder + output;   a training step ≈ 3F
// (the backward of a product C = A·B is two products of the same size, ∂A = G·Bᵀ and ∂B = Aᵀ·G). The formula is
// written for the scaled-dot attention of the paper; other kinds are counted as if they were scaled-dot.
//
// The peak is measured, not looked up: a large square product [n, n] · [n, n] through the matmul op, 2n³
// operations, on the threads the run uses — what `attnlab bench` measures too (lab/bench.h), so the MFU a
// training run prints and bench's "share of the GEMM peak" are the same figure.
#pragma once

#include <cstdint>

#include "model/config.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Matrix-product FLOPs of one forward pass of a model with `model`'s shape on B sentences of S source and T target
// tokens (a language model, model.task: language_model: B blocks of T tokens; S is not read).
double forward_flops(const ModelConfig& model, int64_t B, int64_t S, int64_t T);

// GFLOP/s of one [n, n] · [n, n] matmul on the current threads (the median of `repeats` after one to warm up),
// through the matmul op with no graph recorded. With a `precision` other than float32 (model.precision), the
// product of the model's layers in that format instead (add_product with operands rounded to bfloat16): a model
// trained in bfloat16 is measured against the peak of the products it runs, so its MFU stays a share of 100 %.
double measure_gemm_gflops(int64_t n, int repeats = 5, Precision precision = Precision::float32);

// The MFU of the steps so far: Σ FLOPs over Σ step seconds, over `ranks` processes' peak (each rank measures the
// peak of its own threads; the FLOPs are the whole batch's). 0 when nothing is known yet (no peak, no steps).
struct Utilisation {
  double peak_gflops = 0;     // measured at the start (measure_gemm_gflops), per process
  double flops = 0;           // Σ over the steps of 3 · forward FLOPs
  double step_seconds = 0;    // Σ over the steps of forward + backward + update: validation and checkpoints not counted
  int ranks = 1;

  void add(double step_flops, double seconds) { flops += step_flops; step_seconds += seconds; }
  double mfu() const;
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
