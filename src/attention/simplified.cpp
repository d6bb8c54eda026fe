// simplified.cpp — simplified (projection-free) multi-head self-attention.
//
// The idea: drop the query, key and value projections and let the token vectors attend to each other as
// they are. Scaled dot-product attention (scaled_dot.cpp) with W_Q = W_K = W_V = identity:
//   Q = x,  K = V = m                                         split into heads: [B, h, T, d_k], d_k = d_model / h
//   head_h = softmax(Q_h K_hᵀ / √d_k + mask) V_h              (the √d_k only when config.scale)
//   out    = concat(head_1 … head_h) W_Oᵀ                     the output projection stays
// The score of query i and key j is then the plain similarity x_i · m_j of their embeddings: a token attends
// most to tokens that already look like it (in self-attention often to itself, since x_i · x_i = |x_i|²), and
// what it gathers is the keys' own vectors. With no projections the heads differ only in which d_k features
// they compare. It is the "Q = K = V = X" self-attention many explanations start from before they introduce
// the learned projections, kept here as a kind of its own so that the projections can be switched off.
// Cost: O(n² · d) time and O(h · n²) memory for the weights, like scaled_dot, but 3 · (d² + d) fewer parameters
// (only W_O and its bias are left) and three fewer matrix products per layer.
// When it is worth using: as an ablation, to see what the learned projections buy (compare with scaled_dot on
// the same run); in very small models where parameters are scarce. Its limit: a query can only look for keys
// that resemble it, never for something else (a verb for its subject, say), which is what W_Q and W_K allow.
#include <cmath>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "nn/layers.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

class SimplifiedAttention : public Attention {
 public:
  SimplifiedAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, double dropout, Generator& init)
      : out_proj(register_module("out_proj", std::make_unique<Linear>(d_model, d_model, init))),
        config_(c),
        heads_(heads),
        dropout_(dropout) {}

  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override {
    Tensor Q = split_heads(x, heads_);                                       // [B, h, Tq, d_k], no projection
    ctx.trace(*this, "q", Q);
    Tensor K = split_heads(memory, heads_);                                  // [B, h, Tk, d_k]
    ctx.trace(*this, "k", K);
    Tensor V = K;                                                            // [B, h, Tk, d_k], the same numbers
    ctx.trace(*this, "v", V);
    Tensor scores = matmul(Q, K, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, h, Tq, Tk] = Q Kᵀ
    if (config_.scale) scores = scale(scores, score_scale(Q.size(3)));
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

  // Incremental decoding (cache.cpp): keys and values are the inputs themselves.
  AttentionCache start_self_cache(int64_t batch, int64_t capacity) override {
    const int64_t d_k = out_proj.weight.size(1) / heads_;
    return make_kv_cache(batch, heads_, capacity, d_k, d_k, config_);
  }
  AttentionCache start_cross_cache(const Tensor& memory, const std::vector<uint8_t>& memory_is_real) override {
    Tensor K = split_heads(memory, heads_);                                  // [B, h, Tk, d_k], V = K
    return make_kv_cache(K, K, memory_is_real);
  }
  Tensor step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) override {
    Tensor Q = split_heads(x, heads_);                                       // [B, h, 1, d_k]
    if (cache.self) append_key(cache, Q, Q, x_is_real);                      // k_t = v_t = x_t
    const int64_t d_k = Q.size(3);
    const real factor = config_.scale ? score_scale(d_k) : real(1);
    Tensor context = attend_cached(cache, config_, [&](int64_t row, const real* k) {
      return dot_product(Q.data() + row * d_k, k, d_k) * factor;             // x_t · x_j / √d_k
    });                                                                      // [B, h, 1, d_k]
    ++cache.position;
    return out_proj.forward(merge_heads(context));                           // [B, 1, d_model]
  }

  Linear& out_proj;

 private:
  AttentionConfig config_;
  int64_t heads_;
  double dropout_;
};

}  // namespace

std::unique_ptr<Attention> make_simplified_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                     int64_t heads, double dropout, Generator& init) {
  return std::make_unique<SimplifiedAttention>(c, d_model, heads, dropout, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
