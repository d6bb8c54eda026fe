// local.cpp — local attention (Luong, Pham & Manning 2015, "Effective Approaches to Attention-based Neural Machine
// Translation", §3.2): each query looks only at a window of 2D + 1 keys around a centre p_i, local_m and local_p.
//   score_ij = q_i · k_j / √d_k,  j ∈ [p_i − D, p_i + D]     (local_p: the weights × e^(−(j − p_i)² / 2σ²))
// The idea. Global attention weighs every source word for every target word. Luong's local attention first picks
// a position p_i in the source, then attends only to the keys j ∈ [p_i − D, p_i + D] (D = `local_width`):
//   local_m (monotonic)   p_i = i — source and target are assumed roughly in step. Weights: the softmax of the
//                         scores over the window (the paper's eq. 7 restricted to it), nothing else.
//   local_p (predictive)  p_i = S_i · σ(v_pᵀ tanh(W_p x_i)) — the model predicts where to look, from the query's
//                         own input x_i. Weights: the softmax over the window times a Gaussian centred on p_i,
//                             a_ij = softmax_{j ∈ window}(score_ij) · exp(−(j − p_i)² / 2σ²),   σ = D / 2  (eq. 10)
//                         so the keys near p_i count most. As in the paper the product is not renormalised: a row
//                         sums to less than 1 (between e^(−2) and 1), and the recorded maps show it so.
// The score is the family's default, q·k / √d_k per head (Luong's "general"/"dot" scores are its one-head
// relatives), and each head has its own centre: W_p [d_model, d_model] is split into heads like W_Q, and head h
// has its own v_p,h [d_k]: p_i,h = S_i · σ(v_p,hᵀ tanh(W_p,h x_i)).
// Where the window may lie: S_i is the last position query i may look at, and positions count from 0 (the paper
// counts from 1, so its S becomes our S − 1):
//   cross-attention and encoder self-attention   S_i = the sentence's real length − 1 (padding is not counted)
//   decoder self-attention (causal)              S_i = i: a query sees nothing later than itself
// local_m's centre is p_i = min(i, S_i): as in the paper, held at the source's last word once the target is longer.
// (Not i · S / T: T, the target's length, is unknown while translating, and while training it would tell every
// position how long the sentence will be — the mask proofs catch exactly that.)
// Self-attention: local_m as encoder or decoder self-attention is exactly a restricted window [D, D] ([D, 0]
// causal) of scaled_dot (tests/attention/f64_attention_local_hard.cpp checks it); local_p lets each word choose
// where in its own sentence to look.
// What is differentiable and what is not:
//   * the scores, the softmax and the Gaussian: yes, as everywhere. ∂a_ij/∂p_i = a_ij (j − p_i) / σ²;
//   * the window's bounds [p_i − D, p_i + D]: no. Which keys are inside is an integer decision; moving p_i a
//     little changes nothing until a key crosses a bound, and then the output jumps (the key's weight starts at
//     softmax · e^(−2), not at 0). The gradient check therefore uses points away from the bounds;
//   * so v_p and W_p learn only through the Gaussian: the one place p_i enters as a number;
//   * local_m's centre is a constant (i), and has no parameters.
// Paths: the chain only (model.path: fused runs it too), every score computed and all but the window masked:
// O(n² · d). A banded kernel (O(n · D · d)) would fit local_m's moving window, not local_p's.
//
// Parameters (PyTorch names): q_proj, k_proj, v_proj, out_proj as scaled_dot; local_p adds position_proj.weight
// [d_model, d_model] (W_p, no bias, as in the paper) and position_score.weight [heads, d_k] (row h is v_p,h).
#include <algorithm>
#include <cmath>
#include <limits>

#include "attention/scaled_dot.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// scaled_dot's score and chain; the weights are its own: the window around p_i (and local_p's Gaussian).
class LocalAttention : public ScaledDotAttention {
 public:
  LocalAttention(const AttentionConfig& c, bool predictive, int64_t d_model, int64_t heads, double dropout,
                 Generator& init)
      : ScaledDotAttention(c, d_model, heads, dropout, /*d_k=*/d_model / heads), predictive_(predictive) {
    add_projections(d_model, init);                                          // W_Q, W_K, W_V, W_O
    if (predictive_) {
      position_proj = add_projection("position_proj", d_model, d_model, init, /*bias=*/false);   // W_p
      position_score = add_head_vectors("position_score.weight", init);     // v_p,h, [heads, d_k]
    }
  }

  // 1. The centres p_i, one per head and query, and the window [p_i − D, p_i + D] around each; 2. softmax of the
  // scores over the window; 3. (local_p) times the Gaussian around p_i.
  Tensor weigh(const Tensor& scores, const AttentionMask& mask, const Tensor& x, ForwardContext& ctx) override {
    const int64_t B = x.size(0), Tq = x.size(1);
    std::vector<real> last(static_cast<size_t>(B * Tq));                    // S_i per (sentence, query)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < Tq; ++i) last[static_cast<size_t>(b * Tq + i)] = last_position(mask, b, i);
    Tensor p = centres(x, last, /*first_position=*/0);                      // [B, h, Tq, 1]
    trace_centres(p, ctx);                                                  // `attnlab trace`: p_i per head
    Tensor additive_mask = window_mask(p, mask);                            // [B, h, Tq, Tk], 0 or −∞ (no gradient)
    ctx.trace(*this, "scores", scores, additive_mask);                      // as the softmax sees them
    Tensor weights = softmax(scores, additive_mask);                        // [B, h, Tq, Tk], rows sum to 1
    if (!predictive_) return weights;
    ctx.trace(*this, "softmax", weights);                                   // before the Gaussian
    Tensor gauss = gaussian(p, mask.key_len);                               // [B, h, Tq, Tk] e^(−(j − p_i)²/2σ²)
    ctx.trace(*this, "gaussian", gauss);
    return mul(weights, gauss);                                             // [B, h, Tq, Tk], rows sum to < 1
  }

  // Incremental decoding: the keys and values are kept as for scaled_dot (all of them: local_p's window may sit
  // anywhere in the prefix). A step computes the newest query's centres from its own input and weighs the cached
  // keys by the same rule as weigh(): −∞ outside the window, softmax, times the Gaussian for local_p.
  Tensor attend_step(const Tensor& Q, const Tensor& x, const AttentionCache& cache) override {
    std::vector<real> last(static_cast<size_t>(x.size(0)));                  // S_i of each row's query
    for (size_t b = 0; b < last.size(); ++b) {                               // causal: i; else real keys − 1
      const uint8_t* is_real = cache.key_is_real.data() + cache.kv_row(int64_t(b)) * cache.capacity;   // [Tk]
      last[b] = cache.self ? real(cache.position) : real(last_real(is_real, cache.keys));
    }
    const Tensor p = centres(x, last, cache.position);                       // [B, h, 1, 1]
    return attend_keys(Q, cache, [&](int64_t row, int64_t first, std::vector<real>& a) {
      const real centre = p.data()[row];                                     // p_t of this head
      for (size_t n = 0; n < a.size(); ++n) {
        if (!in_window(first + static_cast<int64_t>(n), centre)) a[n] = -std::numeric_limits<real>::infinity();
      }
      softmax_in_place(a);
      if (!predictive_) return;
      for (size_t n = 0; n < a.size(); ++n) a[n] *= gaussian_factor(first + static_cast<int64_t>(n), centre);
    });                                                                      // [B, h, 1, d_k]
  }

  Linear* position_proj = nullptr;  // W_p (local_p only), "position_proj.weight" [d_model, d_model]
  Tensor position_score;            // v_p (local_p only), "position_score.weight" [heads, d_k]

 private:
  // S_i, the last position query i of sentence b may look at (see the top of the file).
  static real last_position(const AttentionMask& mask, int64_t b, int64_t i) {
    return mask.causal ? real(i) : real(last_real(mask.key_is_real.data() + b * mask.key_len, mask.key_len));
  }
  // The sentence's real length − 1 (0 for none), from its keys' flags is_real [Tk].
  static int64_t last_real(const uint8_t* is_real, int64_t Tk) {
    return std::max<int64_t>(std::count(is_real, is_real + Tk, uint8_t{1}) - 1, 0);
  }
  // The centres p [B, h, Tq, 1] of queries x [B, Tq, d_model] at positions first_position, first_position + 1, …;
  // last [B · Tq] holds each query's S_i.
  //   local_m: p_i = min(i, S_i), a constant.     local_p: p_i = S_i · σ(v_pᵀ tanh(W_p x_i)), in the graph.
  Tensor centres(const Tensor& x, const std::vector<real>& last, int64_t first_position) const {
    const int64_t B = x.size(0), Tq = x.size(1), h = heads_;
    Tensor S = Tensor::zeros({B, 1, Tq, 1});                                 // [B, 1, Tq, 1]   S_i
    std::copy(last.begin(), last.end(), S.data());
    if (!predictive_) {
      Tensor p = Tensor::zeros({B, h, Tq, 1});                               // [B, h, Tq, 1]   min(i, S_i)
      for (int64_t b = 0; b < B; ++b)
        for (int64_t head = 0; head < h; ++head)
          for (int64_t i = 0; i < Tq; ++i)
            p.data()[(b * h + head) * Tq + i] =
                std::min(static_cast<real>(first_position + i), S.data()[b * Tq + i]);
      return p;
    }
    Tensor hidden = split_heads(tanh(position_proj->forward(x)), h);         // [B, h, Tq, d_k]  tanh(W_p x_i)
    Tensor v_p = reshape(position_score, {h, 1, position_score.size(1)});    // [h, 1, d_k]
    Tensor z = sum(mul(hidden, v_p), -1, /*keepdim=*/true);                  // [B, h, Tq, 1]    v_pᵀ tanh(W_p x_i)
    Tensor sigmoid = scale(add_scalar(tanh(scale(z, real(0.5))), real(1)), real(0.5));  // σ(z) = (tanh(z/2) + 1)/2
    return mul(sigmoid, S);                                                  // [B, h, Tq, 1]    p_i = S_i · σ(z)
  }

  // For `attnlab trace`: one line per head with its centres p_i for every query, "p_head0" [B, Tq], "p_head1", …
  // (a line shows the first row: the first sentence's centres, which is the one sentence trace runs).
  void trace_centres(const Tensor& p, ForwardContext& ctx) const {
    if (!ctx.tracer) return;
    const int64_t B = p.size(0), h = p.size(1), Tq = p.size(2);
    for (int64_t head = 0; head < h; ++head) {
      Tensor centres = Tensor::zeros({B, Tq});                               // [B, Tq]
      for (int64_t b = 0; b < B; ++b)
        for (int64_t i = 0; i < Tq; ++i) centres.data()[b * Tq + i] = p.data()[(b * h + head) * Tq + i];
      ctx.trace(*this, ("p_head" + std::to_string(head)).c_str(), centres);
    }
  }
  // Is key j inside the window [p − D, p + D] of a query centred at p?
  bool in_window(int64_t j, real p) const {
    return std::abs(static_cast<real>(j) - p) <= static_cast<real>(config_.local_width);
  }
  // exp(−(j − p)² / 2σ²) with σ = D / 2.
  real gaussian_factor(int64_t j, real p) const {
    const real sigma = static_cast<real>(config_.local_width) / 2, distance = static_cast<real>(j) - p;
    return std::exp(-distance * distance / (2 * sigma * sigma));
  }

  // 0 where key j is allowed (real, not in the future) and inside query i's window, −∞ elsewhere: [B, h, Tq, Tk].
  // Read from p's numbers: the window's bounds pass no gradient.
  Tensor window_mask(const Tensor& p, const AttentionMask& mask) const {
    const int64_t B = p.size(0), h = p.size(1), Tq = p.size(2), Tk = mask.key_len;
    Tensor additive = Tensor::zeros({B, h, Tq, Tk});                         // [B, h, Tq, Tk]
    for (int64_t b = 0; b < B; ++b)
      for (int64_t head = 0; head < h; ++head)
        for (int64_t i = 0; i < Tq; ++i) {
          const int64_t row = (b * h + head) * Tq + i;
          for (int64_t j = 0; j < Tk; ++j) {
            const bool visible = mask.allowed(b, i, j, config_) && in_window(j, p.data()[row]);
            if (!visible) additive.data()[row * Tk + j] = -std::numeric_limits<real>::infinity();
          }
        }
    return additive;
  }

  // The Gaussian exp(−(j − p_i)² / 2σ²) for every query and key, [B, h, Tq, Tk]; differentiable in p.
  Tensor gaussian(const Tensor& p, int64_t Tk) const {
    Tensor positions = Tensor::zeros({1, 1, 1, Tk});                         // [1, 1, 1, Tk]   j = 0 … Tk − 1
    for (int64_t j = 0; j < Tk; ++j) positions.data()[j] = static_cast<real>(j);
    Tensor distance = sub(positions, p);                                     // [B, h, Tq, Tk]  j − p_i
    const real sigma = static_cast<real>(config_.local_width) / 2;
    return exp(scale(mul(distance, distance), -1 / (2 * sigma * sigma)));    // [B, h, Tq, Tk]
  }

  bool predictive_;  // local_p (true) or local_m (false)
};

}  // namespace

std::unique_ptr<Attention> make_local_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                int64_t heads, double dropout, Generator& init) {
  const bool predictive = c.kind == AttentionKind::local_p;                  // local_p, or local_m
  return std::make_unique<LocalAttention>(c, predictive, d_model, heads, dropout, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
