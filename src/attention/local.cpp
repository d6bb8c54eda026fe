// local.cpp — local attention (Luong, Pham & Manning 2015, "Effective Approaches to Attention-based Neural Machine
// Translation", §3.2): each query looks only at a window of 2D + 1 keys around a centre p_i, local_m and local_p.
//
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
//
// Where the window may lie: S_i is the last position query i may look at, and positions count from 0 (the paper
// counts from 1, so its S becomes our S − 1):
//   cross-attention and encoder self-attention   S_i = the sentence's real length − 1 (padding is not counted)
//   decoder self-attention (causal)              S_i = i: a query sees nothing later than itself
// local_m's centre is p_i = min(i, S_i). For cross-attention the issue that asked for this kind suggested
// p_i = i · S / T (scaled to the source length), but T, the target's length, is what the decoder is in the middle
// of producing: while translating it is unknown, and while training it would tell every position how long the
// sentence will be (the mask proofs catch exactly that). So p_i = i as in the paper, held at the source's last
// word once the target is longer than the source.
// Self-attention: local_m as encoder or decoder self-attention is exactly a restricted window [D, D] ([D, 0]
// causal) of scaled_dot (tests/attention/f64_attention_local_hard.cpp checks it); local_p lets each word choose where in
// its own sentence to look.
//
// What is differentiable and what is not:
//   * the scores, the softmax and the Gaussian: yes, as everywhere. ∂a_ij/∂p_i = a_ij (j − p_i) / σ²;
//   * the window's bounds [p_i − D, p_i + D]: no. Which keys are inside is an integer decision; moving p_i a
//     little changes nothing until a key crosses a bound, and then the output jumps (the key's weight starts at
//     softmax · e^(−2), not at 0). The gradient check therefore uses points away from the bounds;
//   * so v_p and W_p learn only through the Gaussian: the one place p_i enters as a number;
//   * local_m's centre is a constant (i), and has no parameters.
// σ(z) is written 0.5 · (tanh(z / 2) + 1), the same function with the ops the engine already has.
//
// Paths: this is the paper's path only, the paper's chain of plain ops — with model.path: fused it runs the
// same chain. It computes every score and masks all but the window: O(n² · d). A banded kernel like scaled_dot's
// (O(n · D · d)) fits local_m, whose window moves with i, but not local_p, whose window sits wherever p_i lands.
//
// Parameters (PyTorch names): q_proj, k_proj, v_proj, out_proj as scaled_dot; local_p adds position_proj.weight
// [d_model, d_model] (W_p, no bias, as in the paper) and position_score.weight [heads, d_k] (row h is v_p,h).
#include <algorithm>
#include <cmath>
#include <limits>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "nn/layers.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

class LocalAttention : public Attention {
 public:
  LocalAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, double dropout, Generator& init)
      : q_proj(register_module("q_proj", std::make_unique<Linear>(d_model, d_model, init))),
        k_proj(register_module("k_proj", std::make_unique<Linear>(d_model, d_model, init))),
        v_proj(register_module("v_proj", std::make_unique<Linear>(d_model, d_model, init))),
        out_proj(register_module("out_proj", std::make_unique<Linear>(d_model, d_model, init))),
        config_(c),
        heads_(heads),
        dropout_(dropout),
        predictive_(c.kind == AttentionKind::local_p) {
    if (predictive_) {
      position_proj = &register_module("position_proj", std::make_unique<Linear>(d_model, d_model, init, false));
      const int64_t d_k = d_model / heads;
      const real bound = static_cast<real>(1.0 / std::sqrt(double(d_k)));    // as Linear(d_k, 1)
      position_score = register_parameter("position_score.weight",
                                          Tensor::uniform({heads, d_k}, init, -bound, bound));   // [h, d_k]
    }
  }

  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override {
    const int64_t B = x.size(0), Tq = x.size(1), Tk = memory.size(1);
    if (mask.batch != B || mask.query_len != Tq || mask.key_len != Tk) {
      throw Error("local attention (" + name + "): the mask is for " + std::to_string(mask.batch) + " × " +
                  std::to_string(mask.query_len) + " queries × " + std::to_string(mask.key_len) +
                  " keys, but the inputs are queries " + x.shape().str() + " and keys " + memory.shape().str());
    }
    Tensor Q = split_heads(q_proj.forward(x), heads_);                      // [B, h, Tq, d_k]
    ctx.trace(*this, "q", Q);
    Tensor K = split_heads(k_proj.forward(memory), heads_);                 // [B, h, Tk, d_k]
    ctx.trace(*this, "k", K);
    Tensor V = split_heads(v_proj.forward(memory), heads_);                 // [B, h, Tk, d_k]
    ctx.trace(*this, "v", V);

    // 1. The centres p_i, one per head and query, and the window [p_i − D, p_i + D] around each.
    std::vector<real> last(static_cast<size_t>(B * Tq));                    // S_i per (sentence, query)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < Tq; ++i) last[static_cast<size_t>(b * Tq + i)] = last_position(mask, b, i);
    Tensor p = centres(x, last, /*first_position=*/0);                      // [B, h, Tq, 1]
    trace_centres(p, ctx);                                                  // `attnlab trace`: p_i per head
    Tensor additive_mask = window_mask(p, mask);                            // [B, h, Tq, Tk], 0 or −∞ (no gradient)

    // 2. softmax(Q Kᵀ / √d_k) over the window, 3. (local_p) times the Gaussian around p_i.
    Tensor scores = matmul(Q, K, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, h, Tq, Tk] = Q Kᵀ
    if (config_.scale) scores = scale(scores, score_scale(Q.size(3)));      // [B, h, Tq, Tk] / √d_k
    ctx.trace(*this, "scores", scores, additive_mask);                      // as the softmax sees them
    Tensor weights = softmax(scores, additive_mask);                        // [B, h, Tq, Tk], rows sum to 1
    if (predictive_) {
      ctx.trace(*this, "softmax", weights);                                 // before the Gaussian
      Tensor gauss = gaussian(p, Tk);                                       // [B, h, Tq, Tk] e^(−(j − p_i)²/2σ²)
      ctx.trace(*this, "gaussian", gauss);
      weights = mul(weights, gauss);                                        // [B, h, Tq, Tk], rows sum to < 1
    }
    ctx.trace(*this, "weights", weights);
    if (ctx.recorder) ctx.recorder->record(name, weights);

    // 4. The context, as every softmax kind: Σ_j a_ij v_j per head, heads merged, W_O.
    Tensor context = matmul(apply_dropout(weights, dropout_, ctx), V);      // [B, h, Tq, d_k]
    ctx.trace(*this, "context", context);
    Tensor out = out_proj.forward(merge_heads(context));                    // [B, Tq, d_model]
    ctx.trace(out_proj, out);
    return out;
  }

  // Incremental decoding: the keys and values are kept as for scaled_dot (all of them: local_p's window may sit
  // anywhere in the prefix). A step computes the newest query's centres from its own input and weighs the cached
  // keys by the same rule as forward(): −∞ outside the window, softmax, times the Gaussian for local_p.
  AttentionCache start_self_cache(int64_t batch, int64_t capacity) override {
    const int64_t d_k = q_proj.weight.size(0) / heads_;
    return make_kv_cache(batch, heads_, capacity, d_k, d_k, config_);
  }
  AttentionCache start_cross_cache(const Tensor& memory, const std::vector<uint8_t>& memory_is_real) override {
    return make_kv_cache(split_heads(k_proj.forward(memory), heads_),         // [B, h, Tk, d_k]
                         split_heads(v_proj.forward(memory), heads_), memory_is_real);
  }
  Tensor step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) override {
    const int64_t B = x.size(0), h = heads_;
    Tensor Q = split_heads(q_proj.forward(x), h);                            // [B, h, 1, d_k]
    if (cache.self) {
      append_key(cache, split_heads(k_proj.forward(x), h),                   // k_t, v_t: [B, h, 1, d_k]
                 split_heads(v_proj.forward(x), h), x_is_real);
    }
    std::vector<real> last(static_cast<size_t>(B));                          // S_i of each row's query
    for (int64_t b = 0; b < B; ++b) {
      if (cache.self) {
        last[static_cast<size_t>(b)] = static_cast<real>(cache.position);    // causal: S_i = i
      } else {
        const uint8_t* is_real = cache.key_is_real.data() + cache.kv_row(b) * cache.capacity;   // [Tk]
        const int64_t real_keys = std::count(is_real, is_real + cache.keys, uint8_t{1});          // S + 1
        last[static_cast<size_t>(b)] = static_cast<real>(std::max<int64_t>(real_keys - 1, 0));
      }
    }
    const Tensor p = centres(x, last, cache.position);                       // [B, h, 1, 1]
    const int64_t d_k = Q.size(3);
    const real factor = config_.scale ? score_scale(d_k) : real(1);
    Tensor context = attend_cached(
        cache, config_,
        [&](int64_t row, const real* k) { return dot_product(Q.data() + row * d_k, k, d_k) * factor; },
        [&](int64_t row, int64_t first, std::vector<real>& a) {
          const real centre = p.data()[row];                                 // p_t of this head
          for (size_t n = 0; n < a.size(); ++n) {
            if (!in_window(first + static_cast<int64_t>(n), centre)) a[n] = -std::numeric_limits<real>::infinity();
          }
          softmax_in_place(a);
          if (!predictive_) return;
          for (size_t n = 0; n < a.size(); ++n) a[n] *= gaussian_factor(first + static_cast<int64_t>(n), centre);
        });                                                                  // [B, h, 1, d_k]
    ++cache.position;
    return out_proj.forward(merge_heads(context));                           // [B, 1, d_model]
  }

  Linear& q_proj;
  Linear& k_proj;
  Linear& v_proj;
  Linear& out_proj;
  Linear* position_proj = nullptr;  // W_p (local_p only), "position_proj.weight" [d_model, d_model]
  Tensor position_score;            // v_p (local_p only), "position_score.weight" [heads, d_k]

 private:
  // S_i, the last position query i of sentence b may look at (see the top of the file).
  static real last_position(const AttentionMask& mask, int64_t b, int64_t i) {
    if (mask.causal) return static_cast<real>(i);
    const uint8_t* is_real = mask.key_is_real.data() + b * mask.key_len;   // [Tk]
    const int64_t real_keys = std::count(is_real, is_real + mask.key_len, uint8_t{1});
    return static_cast<real>(std::max<int64_t>(real_keys - 1, 0));
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
      const std::string stage = "p_head" + std::to_string(head);
      ctx.trace(*this, stage.c_str(), centres);
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
            if (!mask.allowed(b, i, j, config_) || !in_window(j, p.data()[row])) {
              additive.data()[row * Tk + j] = -std::numeric_limits<real>::infinity();
            }
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

  AttentionConfig config_;
  int64_t heads_;
  double dropout_;
  bool predictive_;  // local_p (true) or local_m (false)
};

}  // namespace

std::unique_ptr<Attention> make_local_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                int64_t heads, double dropout, Generator& init) {
  return std::make_unique<LocalAttention>(c, d_model, heads, dropout, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
