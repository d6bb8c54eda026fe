// multi_head.h — the frame every kind of attention fills: multi-head attention (Vaswani et al. 2017, §3.2.2)
// with the score left open. A kind of attention is its score; the rest is the same for all of them.
//
//   Q = x W_Qᵀ,  K = m W_Kᵀ,  V = m W_Vᵀ           projections, split into h heads [B, h, T, d_k]
//   scores = score(Q, K)                            THE KIND: q·k/√d_k, vᵀ tanh(q + k), φ(q)·φ(k), …  [B, h, Tq, Tk]
//   a      = softmax(scores + mask)                 weigh(): rows sum to 1 over the keys a query may see
//   head_h = dropout(a) V_h                         mixing(): what mixes the values (hard attention: one key)
//   out    = concat(head_1 … head_h) W_Oᵀ           output()
// forward() (multi_head.cpp) runs that chain top to bottom; it is scaled dot-product attention's chain when the
// score is scaled_dot.cpp's. Incremental decoding runs the same frame one query at a time: step() projects the
// newest position, remember() keeps its key and value in the cache, attend_step() weighs the cached keys with
// score_one() — the score of one query and one key — and output() projects the result.
//
// What each kind writes (one file each, opening with its equation):
//   scaled_dot   score, score_one; a fused path beside the chain (forward when model.path: fused)
//   additive     score, score_one                                    (Bahdanau's learned score)
//   simplified   nothing: scaled_dot with no projections (Q = x, K = V = m)
//   sagan        output (γ · context); one head, Q and K of d/8
//   local        weigh (the window around p_i, and the Gaussian for local_p), attend_step
//   hard         mixing (one key drawn from a), attend_step (the argmax key)
//   linear       attend (φ(q)ᵀ Σ φ(k) vᵀ, no [Tq, Tk] matrix), its caches and step: the RNN state (S, Z)
//   external     attend (softmax over tokens, then over slots), its cache and step
#pragma once

#include <string>
#include <vector>

#include "attention/attention.h"
#include "nn/layers.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

class MultiHeadAttention : public Attention {
 public:
  // query_input x [B, Tq, d_model], memory m [B, Tk, d_model], the mask → [B, Tq, d_model] (attention.h).
  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override;

  // Incremental decoding (attention.h): K and V kept in a cache (cache.cpp), one query at a time.
  AttentionCache start_self_cache(int64_t batch, int64_t capacity) override;
  AttentionCache start_cross_cache(const Tensor& memory, const std::vector<uint8_t>& memory_is_real) override;
  Tensor step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) override;

  // The projections, as PyTorch names them; null where the kind has none (simplified, external, sagan).
  Linear* q_proj = nullptr;    // W_Q [d_qk, d_model]
  Linear* k_proj = nullptr;    // W_K [d_qk, d_model]
  Linear* v_proj = nullptr;    // W_V [d_v, d_model]
  Linear* out_proj = nullptr;  // W_O [d_model, d_model]

 protected:
  MultiHeadAttention(const AttentionConfig& config, int64_t d_model, int64_t heads, double dropout)
      : config_(config), d_model_(d_model), heads_(heads), dropout_(dropout) {}

  // Registers q_proj, k_proj, v_proj and out_proj, in that order (the order their weights are drawn in), all
  // d_model → d_model: the paper's four matrices.
  void add_projections(int64_t d_model, Generator& init);
  // One Linear named `name`, in_features → out_features.
  Linear* add_projection(const std::string& name, int64_t in_features, int64_t out_features, Generator& init,
                         bool bias = true);
  // One learned vector per head, [h, d_k], named `name`: h Linear(d_k → 1) without bias, initialised as PyTorch's
  // (uniform in ±1/√d_k) — additive attention's w_h, local_p's v_p,h.
  Tensor add_head_vectors(const std::string& name, Generator& init);
  // x [B, T, d_model] through `projection` (or as it is, when null), split into heads → [B, h, T, d].
  Tensor project(const Linear* projection, const Tensor& x) const;
  // d, the width of one head after `projection` (d_model / h when there is none).
  int64_t head_width(const Linear* projection) const;
  // Throws attnlab::Error unless the mask is for x's B × Tq queries and memory's Tk keys.
  void check_mask(const Tensor& x, const Tensor& memory, const AttentionMask& mask) const;

  // ---- What makes a kind that kind ----
  // Its score of every query against every key: Q [B, h, Tq, d_k], K [B, h, Tk, d_k] → [B, h, Tq, Tk].
  virtual Tensor score(const Tensor& Q, const Tensor& K, ForwardContext& ctx) = 0;
  // The score of one query q and one key k of head `head` (d_k numbers each), for attend_step(). A kind whose
  // step reads no cached keys one by one (linear, external) leaves it undefined: the default refuses.
  virtual real score_one(int64_t head, const real* q, const real* k, int64_t d_k) const;

  // ---- What a kind may change; the defaults are scaled dot-product attention's ----
  // The context of every query, [B, h, Tq, d_v]: score → weigh → record → mixing → · V. Linear and external
  // attention, which never form a [Tq, Tk] matrix of weights, replace it whole.
  virtual Tensor attend(const Tensor& Q, const Tensor& K, const Tensor& V, const AttentionMask& mask,
                        const Tensor& x, ForwardContext& ctx);
  // The weights a [B, h, Tq, Tk] the maps show: softmax(scores + mask). x is the query input (local_p reads it).
  virtual Tensor weigh(const Tensor& scores, const AttentionMask& mask, const Tensor& x, ForwardContext& ctx);
  // What multiplies V, [B, h, Tq, Tk]: dropout(a) while training, a otherwise.
  virtual Tensor mixing(const Tensor& a, const Tensor& scores, const AttentionMask& mask, ForwardContext& ctx);
  // The output from the merged heads, context [B, T, h·d_v] → [B, T, d_model]: W_O.
  virtual Tensor output(const Tensor& context, ForwardContext& ctx);
  // Keeps the newest key and value (K_new, V_new [B, h, 1, d]) in a self-attention cache: append_key.
  virtual void remember(AttentionCache& cache, const Tensor& K_new, const Tensor& V_new,
                        const std::vector<uint8_t>& is_real);
  // The newest query's context, Q [B, h, 1, d_k] → [B, h, 1, d_v]: softmax of score_one over the cached keys.
  virtual Tensor attend_step(const Tensor& Q, const Tensor& x, const AttentionCache& cache);
  // attend_cached (cache.cpp) with this kind's score_one, and `weights` (default: softmax) turning a row of scores
  // into weights: what attend_step() is made of, for kinds that weigh their own way.
  Tensor attend_keys(const Tensor& Q, const AttentionCache& cache, const StepWeights& weights = {}) const;

  const AttentionConfig config_;
  const int64_t d_model_;
  const int64_t heads_;
  const double dropout_;
  bool memory_gives_keys_ = true;  // false for external attention: its keys and values are learned slots
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
