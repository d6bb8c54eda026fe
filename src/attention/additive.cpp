// additive.cpp — multi-head additive attention (Bahdanau, Cho & Bengio 2015, "Neural Machine Translation by
// Jointly Learning to Align and Translate", §3.1 and appendix A.1.2).
//
// The idea: instead of measuring how well query i matches key j by a dot product, feed both into a tiny
// one-hidden-layer network and let it learn the match. Bahdanau's alignment model is
//     e_ij = vᵀ tanh(W s_{i−1} + U h_j)
// (s the decoder state, h_j the encoder's annotations). Here, per head h with d_k = d_model / heads:
//   Q = x W_Qᵀ,  K = m W_Kᵀ,  V = m W_Vᵀ                       split into heads: [B, h, T, d_k]
//   score_h(i, j) = w_hᵀ · tanh(Q_h,i + K_h,j)                  w_h ∈ R^d_k, learned, one per head
//   head_h = softmax(score_h + mask) V_h
//   out    = concat(head_1 … head_h) W_Oᵀ
// w is the parameter `score_proj.weight` [heads, d_k]: row h is head h's w_h, the "v" of the paper. It plays
// the part of a Linear(d_k → 1) with no bias per head (a bias would add the same number to every key's score,
// which softmax ignores), so it is named like one and initialised like one: uniform in ±1/√d_k.
//
// No √d_k here (config.scale is ignored). Dot-product scores grow with d_k because q·k sums d_k products of
// unbounded numbers. The additive score is different: tanh keeps each of its d_k terms in [−1, 1] and w starts
// in ±1/√d_k, so at initialisation the score has variance ≈ d_k · (1/(3 d_k)) · E[tanh²] ≤ 1/3 whatever d_k is —
// the scale is already inside w, and since w is learned any other scale can be learned too.
//
// Cost: O(n² · d) time like dot-product attention, but the tanh is taken of every (query, key, feature)
// triple, so the pairwise tensor is B · h · Tq · Tk · d_k = B · Tq · Tk · d_model numbers — O(n² · d) memory
// where scaled_dot needs O(h · n²). Written as broadcast add → tanh → multiply by w → sum over d_k, three such
// tensors stay alive for backward. (A fused kernel would loop over (i, j) and keep only the scores; the
// composition below is the slow, obvious version, kept because every step is an op a learner already knows.)
// When it is worth using: to read Bahdanau's paper next to code and to compare with dot-product attention at
// small n and d; a learned, bounded score function can help when q and k live on very different scales. For
// long sequences or wide models its memory makes it the most expensive kind here.
#include <cmath>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "nn/layers.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

class AdditiveAttention : public Attention {
 public:
  AdditiveAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, double dropout, Generator& init)
      : q_proj(register_module("q_proj", std::make_unique<Linear>(d_model, d_model, init))),
        k_proj(register_module("k_proj", std::make_unique<Linear>(d_model, d_model, init))),
        v_proj(register_module("v_proj", std::make_unique<Linear>(d_model, d_model, init))),
        out_proj(register_module("out_proj", std::make_unique<Linear>(d_model, d_model, init))),
        config_(c),
        heads_(heads),
        dropout_(dropout) {
    const int64_t d_k = d_model / heads;
    const real bound = static_cast<real>(1.0 / std::sqrt(double(d_k)));          // as Linear(d_k, 1)
    score_weight = register_parameter("score_proj.weight", Tensor::uniform({heads, d_k}, init, -bound, bound));
  }

  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override {
    const int64_t B = x.size(0), Tq = x.size(1), Tk = memory.size(1), h = heads_;
    Tensor Q = split_heads(q_proj.forward(x), h);                            // [B, h, Tq, d_k]
    ctx.trace(*this, "q", Q);
    Tensor K = split_heads(k_proj.forward(memory), h);                       // [B, h, Tk, d_k]
    ctx.trace(*this, "k", K);
    Tensor V = split_heads(v_proj.forward(memory), h);                       // [B, h, Tk, d_k]
    ctx.trace(*this, "v", V);
    const int64_t d_k = Q.size(3);

    // Every query next to every key: broadcasting [.., Tq, 1, d_k] + [.., 1, Tk, d_k] makes all Tq · Tk sums.
    Tensor Q_i = reshape(Q, {B * h, Tq, 1, d_k});                            // [B·h, Tq, 1, d_k]
    Tensor K_j = reshape(K, {B * h, 1, Tk, d_k});                            // [B·h, 1, Tk, d_k]
    Tensor hidden = tanh(add(Q_i, K_j));                                     // [B·h, Tq, Tk, d_k]
    // w_hᵀ · hidden: multiply by head h's w along d_k and add up. Seen as [B, h, Tq·Tk, d_k], the heads axis
    // lines up with w's rows when w is shaped [h, 1, d_k].
    hidden = reshape(hidden, {B, h, Tq * Tk, d_k});                          // [B, h, Tq·Tk, d_k]
    ctx.trace(*this, "tanh", hidden);                                        // row i·Tk + j: tanh(Q_i + K_j)
    Tensor w = reshape(score_weight, {h, 1, d_k});                           // [h, 1, d_k]
    Tensor scores = sum(mul(hidden, w), /*axis=*/-1);                        // [B, h, Tq·Tk]
    scores = reshape(scores, {B, h, Tq, Tk});                                // [B, h, Tq, Tk]

    Tensor additive_mask = mask.additive(config_);                           // [B, 1, Tq, Tk], 0 or −∞
    ctx.trace(*this, "scores", scores, additive_mask);                       // as the softmax sees them
    Tensor weights = softmax(scores, additive_mask);                         // [B, h, Tq, Tk], rows sum to 1
    ctx.trace(*this, "weights", weights);
    if (ctx.recorder) ctx.recorder->record(name, weights);
    weights = apply_dropout(weights, dropout_, ctx);                         // [B, h, Tq, Tk]
    Tensor context = matmul(weights, V);                                     // [B, h, Tq, d_k]
    ctx.trace(*this, "context", context);
    Tensor out = out_proj.forward(merge_heads(context));                     // [B, Tq, d_model]
    ctx.trace(out_proj, out);
    return out;
  }

  // Incremental decoding (cache.cpp): the score of the newest query against each cached key, one at a time.
  AttentionCache start_self_cache(int64_t batch, int64_t capacity) override {
    const int64_t d_k = q_proj.weight.size(0) / heads_;
    return make_kv_cache(batch, heads_, capacity, d_k, d_k, config_);
  }
  AttentionCache start_cross_cache(const Tensor& memory, const std::vector<uint8_t>& memory_is_real) override {
    return make_kv_cache(split_heads(k_proj.forward(memory), heads_),         // [B, h, Tk, d_k]
                         split_heads(v_proj.forward(memory), heads_), memory_is_real);
  }
  Tensor step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) override {
    Tensor Q = split_heads(q_proj.forward(x), heads_);                       // [B, h, 1, d_k]
    if (cache.self) {
      append_key(cache, split_heads(k_proj.forward(x), heads_),              // k_t, v_t: [B, h, 1, d_k]
                 split_heads(v_proj.forward(x), heads_), x_is_real);
    }
    const int64_t d_k = Q.size(3), h = heads_;
    Tensor context = attend_cached(cache, config_, [&](int64_t row, const real* k) {
      const real* q = Q.data() + row * d_k;                                  // q_t of this head [d_k]
      const real* w = score_weight.data() + (row % h) * d_k;                 // w_h [d_k]
      real score = 0;                                                        // w_hᵀ tanh(q_t + k_j)
      for (int64_t c = 0; c < d_k; ++c) score += std::tanh(q[c] + k[c]) * w[c];
      return score;
    });                                                                      // [B, h, 1, d_k]
    ++cache.position;
    return out_proj.forward(merge_heads(context));                           // [B, 1, d_model]
  }

  Linear& q_proj;
  Linear& k_proj;
  Linear& v_proj;
  Linear& out_proj;
  Tensor score_weight;  // [heads, d_k], "score_proj.weight": row h is w_h (Bahdanau's v)

 private:
  AttentionConfig config_;
  int64_t heads_;
  double dropout_;
};

}  // namespace

std::unique_ptr<Attention> make_additive_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                   int64_t heads, double dropout, Generator& init) {
  return std::make_unique<AdditiveAttention>(c, d_model, heads, dropout, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
