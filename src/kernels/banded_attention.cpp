// banded_attention.cpp — scaled dot-product attention restricted to a window, computed only inside the window.
//
// The idea. With a window [left, right], query i may see only the keys j ∈ [i − left, i + right]. Masking the full
// score matrix (softmax(Q Kᵀ/√d_k + mask) V with −∞ outside the window) gives the right numbers but still costs
// O(n²·d) time and O(n²) memory: most of the matrix is computed only to be thrown away. Here the scores live in a
// band: column w of row i is key j = i − left + w, for w = 0 … W − 1, W = left + right + 1:
//
//     full [Tq, Tk]           band [Tq, W]  (left = 1, right = 1)
//     x x . . .               . x x          row 0: keys −1, 0, 1 (key −1 does not exist: masked)
//     x x x . .               x x x          row 1: keys 0, 1, 2
//     . x x x .               x x x          row 2: keys 1, 2, 3
//     . . x x x               x x x
//     . . . x x               x x .          row 4: keys 3, 4, 5 (key 5 does not exist: masked)
//
// Replaces the chain  scores = matmul(Q, K, false, true) [.., Tq, Tk] → scale → softmax(·, window mask) → dropout →
// matmul(·, V), which is what src/attention/scaled_dot.cpp runs under model.path: paper. What it saves: the
// [Tq, Tk] matrices, O(n²) → O(n·W) (docs/results/length_sweep.md: the windowed kind
// grows as n^1.0 where the full one grows as n^2). tests/kernels/f64_banded_attention.cpp and tests/model/test_two_paths.cpp
// check it against the chain.
//
// Three ops, the band versions of the two products of attention, with the ordinary softmax and a band dropout
// between:
//     S = band_scores(Q, K)        S[i, w] = q_i · k_{i−left+w}              [.., Tq, d] · [.., Tk, d] → [.., Tq, W]
//     A = softmax(S / √d_k + M)    M: −∞ where key i − left + w is outside [0, Tk), padding or the future
//     O = band_mix(A, V)           O_i = Σ_w A[i, w] · v_{i−left+w}          [.., Tq, W] · [.., Tk, d] → [.., Tq, d]
//     A' = band_dropout(A)         drops exactly what dropout() drops of the full [Tq, Tk] matrix A stands for
// which is softmax(Q Kᵀ/√d_k + window mask) V in O(n·W·d) time and O(n·W) memory. (The weights are kept between the
// two products rather than fused away so that dropout can fall on them, as in the full version.) A column whose key
// does not exist gets the score 0 and passes no gradient; the mask must hide it.
//
// Backward, with j = i − left + w (only where 0 ≤ j < Tk), G the gradient of the op's output:
//     band_scores   S[i, w] = Σ_c Q[i, c] K[j, c]   →   ∂Q[i, c] += Σ_w G[i, w] · K[j, c]
//                                                       ∂K[j, c] += Σ_{(i, w) → j} G[i, w] · Q[i, c]
//     band_mix      O[i, c] = Σ_w A[i, w] V[j, c]   →   ∂A[i, w] += Σ_c G[i, c] · V[j, c]
//                                                       ∂V[j, c] += Σ_{(i, w) → j} A[i, w] · G[i, c]
// (the band versions of ∂A = G·Bᵀ and ∂B = Aᵀ·G of matmul.cpp). The key-side sums run over the queries that see
// key j: i = j + left − w for each w — a loop over j then w, so every ∂K and ∂V row is summed in one fixed order.
// Leading axes ([B, h]) are independent slices; each slice is one thread's work, so results do not depend on the
// thread count.
#include <algorithm>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "kernels/kernels.h"
#include "tensor/parallel.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// The slices of the two inputs: `count` consecutive [rows, d] blocks each, with the same leading axes.
struct BandPlan {
  int64_t count = 1;     // product of the leading axes (B · h)
  int64_t Tq = 0, Tk = 0, d = 0, W = 0, left = 0;
};

// x [..., Tx, dx] and y [..., Ty, dy] with equal leading axes; `what` names the op in errors.
BandPlan plan_band(const Shape& x, const Shape& y, const char* what) {
  const std::string shapes = std::string(what) + ": shapes " + x.str() + " and " + y.str() + " do not fit: ";
  if (x.rank() < 2 || x.rank() != y.rank()) throw Error(shapes + "both need the same number of axes, at least 2");
  BandPlan plan;
  for (int axis = 0; axis + 2 < x.rank(); ++axis) {
    if (x[axis] != y[axis]) throw Error(shapes + "their leading (batch, head) axes differ");
    plan.count *= x[axis];
  }
  return plan;
}

}  // namespace

Tensor band_scores(const Tensor& q, const Tensor& k, int64_t left, int64_t right) {
  BandPlan p = plan_band(q.shape(), k.shape(), "band_scores");
  if (q.size(-1) != k.size(-1)) {
    throw Error("band_scores: queries " + q.shape().str() + " and keys " + k.shape().str() +
                " must have the same last axis (d_k)");
  }
  if (left < 0 || right < 0) throw Error("band_scores: the window [left, right] must not be negative");
  p.Tq = q.size(-2);
  p.Tk = k.size(-2);
  p.d = q.size(-1);
  p.W = left + right + 1;
  p.left = left;
  std::vector<int64_t> out_sizes = q.shape().sizes();
  out_sizes.back() = p.W;
  Tensor s = Tensor::zeros(Shape(out_sizes));                           // [..., Tq, W]
  const real* Q = q.data();
  const real* K = k.data();
  real* S = s.data();
#pragma omp parallel for schedule(static) if (worth_threads_for_products(p.count * p.Tq * p.W * p.d))
  for (int64_t n = 0; n < p.count; ++n) {                                // one (b, h) slice
    const real* Qn = Q + n * p.Tq * p.d;                                 // [Tq, d]
    const real* Kn = K + n * p.Tk * p.d;                                 // [Tk, d]
    real* Sn = S + n * p.Tq * p.W;                                       // [Tq, W]
    for (int64_t i = 0; i < p.Tq; ++i)
      for (int64_t w = 0; w < p.W; ++w) {
        const int64_t j = i - p.left + w;
        if (j < 0 || j >= p.Tk) continue;                                // no such key: score 0, masked later
        real dot = 0;
        for (int64_t c = 0; c < p.d; ++c) dot += Qn[i * p.d + c] * Kn[j * p.d + c];
        Sn[i * p.W + w] = dot;                                           // S[i, w] = q_i · k_j
      }
  }

  record(s, "band_scores", {q, k}, [q, k, p](TensorNode& out) {
    const real* G = out.grad.data();                                     // [..., Tq, W]
    const real* Q = q.data();
    const real* K = k.data();
    real* gQ = wants_grad(q) ? q.grad() : nullptr;
    real* gK = wants_grad(k) ? k.grad() : nullptr;
#pragma omp parallel for schedule(static) if (worth_threads_for_products(p.count * p.Tq * p.W * p.d))
    for (int64_t n = 0; n < p.count; ++n) {
      const real* Gn = G + n * p.Tq * p.W;
      const real* Qn = Q + n * p.Tq * p.d;
      const real* Kn = K + n * p.Tk * p.d;
      if (gQ) {                                                          // ∂Q[i, c] += Σ_w G[i, w] · K[j, c]
        real* gQn = gQ + n * p.Tq * p.d;
        for (int64_t i = 0; i < p.Tq; ++i)
          for (int64_t w = 0; w < p.W; ++w) {
            const int64_t j = i - p.left + w;
            if (j < 0 || j >= p.Tk) continue;
            const real g = Gn[i * p.W + w];
            for (int64_t c = 0; c < p.d; ++c) gQn[i * p.d + c] += g * Kn[j * p.d + c];
          }
      }
      if (gK) {                                                          // ∂K[j, c] += Σ_{i sees j} G[i, w] · Q[i, c]
        real* gKn = gK + n * p.Tk * p.d;
        for (int64_t j = 0; j < p.Tk; ++j)
          for (int64_t w = 0; w < p.W; ++w) {
            const int64_t i = j + p.left - w;                            // the query whose column w is key j
            if (i < 0 || i >= p.Tq) continue;
            const real g = Gn[i * p.W + w];
            for (int64_t c = 0; c < p.d; ++c) gKn[j * p.d + c] += g * Qn[i * p.d + c];
          }
      }
    }
  });
  return s;
}

Tensor band_mix(const Tensor& weights, const Tensor& v, int64_t left) {
  BandPlan p = plan_band(weights.shape(), v.shape(), "band_mix");
  if (left < 0 || left >= weights.size(-1)) {
    throw Error("band_mix: left = " + std::to_string(left) + " must be in [0, W) for weights " +
                weights.shape().str());
  }
  p.Tq = weights.size(-2);
  p.W = weights.size(-1);
  p.Tk = v.size(-2);
  p.d = v.size(-1);
  p.left = left;
  std::vector<int64_t> out_sizes = weights.shape().sizes();
  out_sizes.back() = p.d;
  Tensor o = Tensor::zeros(Shape(out_sizes));                           // [..., Tq, d]
  const real* A = weights.data();
  const real* V = v.data();
  real* O = o.data();
#pragma omp parallel for schedule(static) if (worth_threads_for_products(p.count * p.Tq * p.W * p.d))
  for (int64_t n = 0; n < p.count; ++n) {
    const real* An = A + n * p.Tq * p.W;                                 // [Tq, W]
    const real* Vn = V + n * p.Tk * p.d;                                 // [Tk, d]
    real* On = O + n * p.Tq * p.d;                                       // [Tq, d]
    for (int64_t i = 0; i < p.Tq; ++i)
      for (int64_t w = 0; w < p.W; ++w) {
        const int64_t j = i - p.left + w;
        if (j < 0 || j >= p.Tk) continue;
        const real a = An[i * p.W + w];
        for (int64_t c = 0; c < p.d; ++c) On[i * p.d + c] += a * Vn[j * p.d + c];   // O_i += A[i, w] · v_j
      }
  }

  record(o, "band_mix", {weights, v}, [weights, v, p](TensorNode& out) {
    const real* G = out.grad.data();                                     // [..., Tq, d]
    const real* A = weights.data();
    const real* V = v.data();
    real* gA = wants_grad(weights) ? weights.grad() : nullptr;
    real* gV = wants_grad(v) ? v.grad() : nullptr;
#pragma omp parallel for schedule(static) if (worth_threads_for_products(p.count * p.Tq * p.W * p.d))
    for (int64_t n = 0; n < p.count; ++n) {
      const real* Gn = G + n * p.Tq * p.d;
      const real* An = A + n * p.Tq * p.W;
      const real* Vn = V + n * p.Tk * p.d;
      if (gA) {                                                          // ∂A[i, w] += Σ_c G[i, c] · V[j, c]
        real* gAn = gA + n * p.Tq * p.W;
        for (int64_t i = 0; i < p.Tq; ++i)
          for (int64_t w = 0; w < p.W; ++w) {
            const int64_t j = i - p.left + w;
            if (j < 0 || j >= p.Tk) continue;
            real dot = 0;
            for (int64_t c = 0; c < p.d; ++c) dot += Gn[i * p.d + c] * Vn[j * p.d + c];
            gAn[i * p.W + w] += dot;
          }
      }
      if (gV) {                                                          // ∂V[j, c] += Σ_{i sees j} A[i, w] · G[i, c]
        real* gVn = gV + n * p.Tk * p.d;
        for (int64_t j = 0; j < p.Tk; ++j)
          for (int64_t w = 0; w < p.W; ++w) {
            const int64_t i = j + p.left - w;
            if (i < 0 || i >= p.Tq) continue;
            const real a = An[i * p.W + w];
            for (int64_t c = 0; c < p.d; ++c) gVn[j * p.d + c] += a * Gn[i * p.d + c];
          }
      }
    }
  });
  return o;
}

// ---- band_dropout: dropout of the band, with the full matrix's mask ----
//
// dropout(A_full, p) draws one key and drops element e of A_full [.., Tq, Tk] by the mask value m(key, e)
// (ops/dropout.cpp). Band element (r, i, w) stands for full element (r, i, j = i − left + w), flat index
// e = (r·Tq + i)·Tk + j, so it takes m(key, e): the band path drops the very weights the full path drops, and the
// two paths train alike. Columns whose key does not exist hold weight 0 and stay 0.
//     forward  A'[r, i, w] = A[r, i, w] · m(key, e)         backward  ∂A[r, i, w] += G[r, i, w] · m(key, e)
Tensor band_dropout(const Tensor& weights, int64_t left, int64_t key_len, real p, Generator& gen) {
  if (weights.rank() < 2) throw Error("band_dropout: weights " + weights.shape().str() + " must be [..., Tq, W]");
  if (!(p >= 0 && p < 1)) {
    throw Error("band_dropout: the drop probability must be in [0, 1), got " + std::to_string(p));
  }
  if (p == 0) return weights;
  const uint64_t key = draw_dropout_key(gen);                           // the key dropout(A_full) would draw
  const int64_t Tq = weights.size(-2), W = weights.size(-1), rows = weights.numel() / std::max<int64_t>(W, 1);
  // The mask of every band element, once: [rows, W]; kept for backward (a band is small: O(n·W)).
  // A tensor, not a std::vector: its memory comes from and goes back to the pool, so a warm step allocates none.
  Tensor mask = Tensor::zeros({rows, W});                               // [rows, W]
#pragma omp parallel for schedule(static) if (worth_threads(rows * W))
  for (int64_t row = 0; row < rows; ++row) {                            // row = r·Tq + i
    const int64_t i = row % Tq;
    const int64_t first = std::max<int64_t>(0, i - left), last = std::min<int64_t>(key_len, i - left + W);
    if (last <= first) continue;                                        // no key of this row exists
    dropout_mask(key, row * key_len + first, last - first, p, mask.data() + row * W + (first - i + left));
  }
  Tensor out = Tensor::empty(weights.shape());                          // [..., Tq, W]
  for (int64_t e = 0; e < weights.numel(); ++e) out.data()[e] = weights.data()[e] * mask.data()[e];
  record(out, "band_dropout", {weights}, [weights, mask](TensorNode& node) {
    real* g = weights.grad();
    const real* upstream = node.grad.data();                            // [..., Tq, W]
    for (int64_t e = 0; e < weights.numel(); ++e) g[e] += upstream[e] * mask.data()[e];
  });
  return out;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
