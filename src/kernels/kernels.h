// kernels.h — making it fast: the fused ops, each standing in for a chain of chapter-2 ops.
//
// Chapter 2 (src/autograd/ops.h) is the op set a model is written in: one small op per line of the paper, each
// a graph node with its backward beside it. Run as written, a Transformer makes many such nodes per layer, and
// each one writes a full tensor to memory that the next reads back and that backward keeps alive. A fused op
// does the work of a whole chain in one node: fewer tensors kept (memory), fewer passes over memory (time), no
// head split/merge copies. Nothing here is new mathematics — every kernel has the chain it replaces written out
// at the top of its file, and that chain is also code that runs: set `model.path: paper` (configs/README.md)
// and the modules in src/nn/, src/attention/ and src/model/ call the chain instead of the kernel.
// tests/model/test_two_paths.cpp and tests/model/f64_two_paths.cpp check that both paths give the same logits, loss and
// every parameter gradient; each kernel also has its own finite-difference check (src/kernels/checks/).
//
//   kernel                  replaces                                                         file
//   linear                  add(matmul(x, W, false, true), b)                                fused_linear.cpp
//   linear_cross_entropy    cross_entropy(matmul(h, W, false, true), targets, ε, pad)        linear_cross_entropy.cpp
//   add_dropout             add(x, dropout(s, p))                                            fused_dropout.cpp
//   relu_dropout            dropout(relu(h), p)                                              fused_dropout.cpp
//   scaled_dot_attention    split_heads → matmul(Q, Kᵀ) → scale → softmax(·, mask) →         scaled_dot_attention.cpp
//                           dropout → matmul(·, V) → merge_heads
//   band_scores, band_mix,  matmul(Q, Kᵀ), dropout and matmul(A, V) with the full [Tq, Tk]   banded_attention.cpp
//   band_dropout            matrix, when a window hides all but W = left + right + 1 keys per query
//   fused_layer_norm        layer_norm, backward's rows in parallel, its first ∂x in place  layer_norm.cpp
// Measured gains are in each file's opening comment and in docs/course/03-kernels.md.
#pragma once

#include <cstdint>

#include "autograd/ops.h"
#include "tensor/product/product.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// ---- fused_linear.cpp ----
// y = x · Wᵀ + b as one op (nn.Linear). x [..., in], W [out, in], b [out] or undefined (no bias) → y [..., out].
// Its products run on `gemm` in `precision` (tensor/product/product.h; a module passes its own, model.gemm and
// model.precision): forward, ∂x and ∂W alike.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias, Gemm gemm = Gemm::packed,
              Precision precision = Precision::float32);

// ---- linear_cross_entropy.cpp ----
// The output layer and the loss in one op, never holding the [..., V] logits: the same loss and gradients as
// cross_entropy(matmul(h, W, false, true), …) to float rounding. h [..., d], W [V, d] → [1]
Tensor linear_cross_entropy(const Tensor& h, const Tensor& weight, const TokenIds& targets, real label_smoothing,
                            int32_t ignore_id, Gemm gemm = Gemm::packed, Precision precision = Precision::float32);

// ---- layer_norm.cpp ----
// layer_norm(x, γ, β, ε) (autograd/ops.h) with the same forward and its backward's rows in parallel: the same
// numbers to rounding, the same bits for any thread count. x [..., d], γ, β [d] → [..., d]
Tensor fused_layer_norm(const Tensor& x, const Tensor& gamma, const Tensor& beta, real eps = 1e-5);

// ---- fused_dropout.cpp ----
// Dropout fused with its neighbour: the same bits (and the same generator draws) as the two ops, one tensor
// fewer kept.
Tensor add_dropout(const Tensor& x, const Tensor& s, real p, Generator& gen);   // x + dropout(s)
Tensor relu_dropout(const Tensor& h, real p, Generator& gen);                   // dropout(relu(h))

// ---- scaled_dot_attention.cpp ----
// Q [B, Tq, d_model], K, V [B, Tk, d_model] (the projections, heads not yet split) → [B, Tq, d_model], heads merged:
//   out_h = dropout(softmax(scale · Q_h K_hᵀ + additive_mask), p) V_h     for each head h (d_k = d_model / heads)
// additive_mask [B, 1, Tq, Tk] (0 or −∞; optional); p = 0 draws nothing (gen may then be null).
// The same numbers (to rounding) and the same dropped weights as split_heads → matmul → scale → softmax →
// dropout → matmul → merge_heads, in one graph node; the mask receives no gradient. If `weights` is given it
// receives the softmax weights [B, h, Tq, Tk] (before dropout), for an attention recorder: numbers, no graph.
Tensor scaled_dot_attention(const Tensor& Q, const Tensor& K, const Tensor& V, int64_t heads, real scale,
                            const Tensor& additive_mask, real dropout_p, Generator* gen, Tensor* weights = nullptr);

// ---- banded_attention.cpp: the two products of attention inside a window only ----
// Query i sees keys j = i − left + w, w = 0 … W − 1 (W = left + right + 1); scores and weights are stored as a band
// [..., Tq, W] instead of the full [..., Tq, Tk]: O(n·W) instead of O(n²). Leading axes of both inputs must agree.
//   band_scores(Q, K, left, right)  Q [..., Tq, d], K [..., Tk, d] → S [..., Tq, W],  S[i, w] = q_i · k_{i−left+w}
//   band_mix(A, V, left)            A [..., Tq, W], V [..., Tk, d] → O [..., Tq, d],  O_i = Σ_w A[i, w] · v_{i−left+w}
// A column whose key i − left + w is outside [0, Tk) gets score 0 and no gradient: hide it with softmax's mask.
// So softmax(band_scores(Q, K) / √d_k + band mask), then band_mix, is windowed scaled-dot attention.
Tensor band_scores(const Tensor& q, const Tensor& k, int64_t left, int64_t right);
Tensor band_mix(const Tensor& weights, const Tensor& v, int64_t left);
// Dropout of band weights [..., Tq, W] that drops what dropout() would drop of the full [..., Tq, key_len] matrix
// they stand for (band column w of row i is key j = i − left + w), so both paths drop the same weights.
Tensor band_dropout(const Tensor& weights, int64_t left, int64_t key_len, real p, Generator& gen);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
