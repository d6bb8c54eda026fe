// additive.cpp — multi-head additive attention (Bahdanau, Cho & Bengio 2015, "Neural Machine Translation by
// Jointly Learning to Align and Translate", §3.1 and appendix A.1.2).
//   score_h(i, j) = w_hᵀ tanh(q_i + k_j)          per head h; Bahdanau's e_ij = vᵀ tanh(W s_{i−1} + U h_j)
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

#include "attention/multi_head.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

class AdditiveAttention : public MultiHeadAttention {
 public:
  AdditiveAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, double dropout, Generator& init)
      : MultiHeadAttention(c, d_model, heads, dropout) {
    add_projections(d_model, init);                                          // W_Q, W_K, W_V, W_O
    score_weight = add_head_vectors("score_proj.weight", init);              // w_h, [heads, d_k]
  }

  // score_h(i, j) = w_hᵀ · tanh(Q_h,i + K_h,j), for every head, query and key at once.
  Tensor score(const Tensor& Q, const Tensor& K, ForwardContext& ctx) override {
    const int64_t B = Q.size(0), h = Q.size(1), Tq = Q.size(2), Tk = K.size(2), d_k = Q.size(3);
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
    return reshape(scores, {B, h, Tq, Tk});                                  // [B, h, Tq, Tk]
  }

  // The same for the newest query q_t and one cached key k_j of head `head`, in incremental decoding.
  real score_one(int64_t head, const real* q, const real* k, int64_t d_k) const override {
    const real* w = score_weight.data() + head * d_k;                        // w_h [d_k]
    real score = 0;                                                          // w_hᵀ tanh(q_t + k_j)
    for (int64_t c = 0; c < d_k; ++c) score += std::tanh(q[c] + k[c]) * w[c];
    return score;
  }

  Tensor score_weight;  // [heads, d_k], "score_proj.weight": row h is w_h (Bahdanau's v)
};

}  // namespace

std::unique_ptr<Attention> make_additive_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                   int64_t heads, double dropout, Generator& init) {
  return std::make_unique<AdditiveAttention>(c, d_model, heads, dropout, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
