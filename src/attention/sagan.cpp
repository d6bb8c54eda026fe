// sagan.cpp — the self-attention of SAGAN (Zhang, Goodfellow, Metaxas & Odena 2019, "Self-Attention Generative
// Adversarial Networks", §3), on sequences instead of image feature maps. One head.
//
// The idea: a cheap attention whose queries and keys live in a small space (d/8 features: they only have to say
// *where* to look), whose values keep every feature (they carry *what* is fetched), and whose output is
// multiplied by a learned gate γ that starts at 0. With γ = 0 the layer adds nothing, so the block around it
// starts as the identity through the residual x + attn(x); training opens the gate as far as attention helps.
//   Q = x W_Qᵀ       W_Q [d/8, d]      (the paper's f(x); "d/8" means max(1, d_model / 8))
//   K = m W_Kᵀ       W_K [d/8, d]      (the paper's g(x))
//   V = m W_Vᵀ       W_V [d, d]        (the paper's h(x))
//   weights = softmax(Q Kᵀ / √(d/8) + mask)      the √(d/8) only when config.scale (the paper has none)
//   out = γ · (weights V)                        γ a learned scalar, `gamma` [1], starting at 0
// No output projection. The paper projects V down to d/8 too and back up with a fourth 1×1 convolution v(·);
// this follows the widely copied PyTorch implementation instead (query/key 1×1 convs to C/8, value conv C → C,
// gamma = zeros(1)), one matrix fewer and the same idea.
// In an image the "positions" are the H·W pixels of a feature map and the projections are 1×1 convolutions,
// which act on each pixel's channels exactly as a Linear acts on each token's features. The `heads` setting is
// ignored: SAGAN has one head, and the map is recorded as [B, 1, Tq, Tk].
// Cost: O(n² · d) time (Q Kᵀ is n² · d/8, weights · V is n² · d), O(n²) memory for the one map (scaled_dot
// keeps h maps), and about 1.25 · d² parameters against scaled_dot's 4 · d².
// When it is worth using: to add attention to a network that already works without disturbing it at the
// start (γ = 0) — its origin, long-range structure in GAN images; in a Transformer, to watch a layer decide how
// much attention it wants (read γ from the checkpoint). One head of d/8 sees less than h heads of d/h.
#include <algorithm>
#include <cmath>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "nn/layers.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

class SaganAttention : public Attention {
 public:
  SaganAttention(const AttentionConfig& c, int64_t d_model, double dropout, Generator& init)
      : q_proj(register_module("q_proj", std::make_unique<Linear>(d_model, query_key_size(d_model), init))),
        k_proj(register_module("k_proj", std::make_unique<Linear>(d_model, query_key_size(d_model), init))),
        v_proj(register_module("v_proj", std::make_unique<Linear>(d_model, d_model, init))),
        config_(c),
        dropout_(dropout) {
    gamma = register_parameter("gamma", Tensor::zeros({1}));                // γ = 0: the layer starts silent
  }

  // The size of the queries' and keys' space: d_model / 8, at least 1.
  static int64_t query_key_size(int64_t d_model) { return std::max<int64_t>(1, d_model / 8); }

  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override {
    // One head: an axis of size 1 in the place of the heads, so the mask [B, 1, Tq, Tk] and the recorded map
    // have the same layout as every other kind's.
    Tensor Q = split_heads(q_proj.forward(x), 1);                             // [B, 1, Tq, d/8]
    ctx.trace(*this, "q", Q);
    Tensor K = split_heads(k_proj.forward(memory), 1);                        // [B, 1, Tk, d/8]
    ctx.trace(*this, "k", K);
    Tensor V = split_heads(v_proj.forward(memory), 1);                        // [B, 1, Tk, d]
    ctx.trace(*this, "v", V);
    Tensor scores = matmul(Q, K, /*transpose_a=*/false, /*transpose_b=*/true);  // [B, 1, Tq, Tk] = Q Kᵀ
    if (config_.scale) scores = scale(scores, score_scale(Q.size(3)));
    Tensor additive_mask = mask.additive(config_);                            // [B, 1, Tq, Tk], 0 or −∞
    ctx.trace(*this, "scores", scores, additive_mask);                        // as the softmax sees them
    Tensor weights = softmax(scores, additive_mask);                          // [B, 1, Tq, Tk], rows sum to 1
    ctx.trace(*this, "weights", weights);
    if (ctx.recorder) ctx.recorder->record(name, weights);
    weights = apply_dropout(weights, dropout_, ctx);                          // [B, 1, Tq, Tk]
    Tensor context = merge_heads(matmul(weights, V));                         // [B, Tq, d]
    ctx.trace(*this, "context", context);
    Tensor out = mul(gamma, context);                                         // [B, Tq, d] = γ · context
    ctx.trace(*this, "out", out);
    return out;
  }

  // Incremental decoding (cache.cpp): one head, keys of d/8 numbers, values of d.
  AttentionCache start_self_cache(int64_t batch, int64_t capacity) override {
    return make_kv_cache(batch, 1, capacity, q_proj.weight.size(0), v_proj.weight.size(0), config_);
  }
  AttentionCache start_cross_cache(const Tensor& memory, const std::vector<uint8_t>& memory_is_real) override {
    return make_kv_cache(split_heads(k_proj.forward(memory), 1),              // [B, 1, Tk, d/8]
                         split_heads(v_proj.forward(memory), 1), memory_is_real);  // [B, 1, Tk, d]
  }
  Tensor step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) override {
    Tensor Q = split_heads(q_proj.forward(x), 1);                             // [B, 1, 1, d/8]
    if (cache.self) {
      append_key(cache, split_heads(k_proj.forward(x), 1), split_heads(v_proj.forward(x), 1), x_is_real);
    }
    const int64_t d_q = Q.size(3);
    const real factor = config_.scale ? score_scale(d_q) : real(1);
    Tensor context = attend_cached(cache, config_, [&](int64_t row, const real* k) {
      return dot_product(Q.data() + row * d_q, k, d_q) * factor;              // q_t · k_j / √(d/8)
    });                                                                       // [B, 1, 1, d]
    ++cache.position;
    return mul(gamma, merge_heads(context));                                  // [B, 1, d] = γ · context
  }

  Linear& q_proj;   // d → d/8
  Linear& k_proj;   // d → d/8
  Linear& v_proj;   // d → d
  Tensor gamma;     // [1], starts at 0

 private:
  AttentionConfig config_;
  double dropout_;
};

}  // namespace

std::unique_ptr<Attention> make_sagan_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                int64_t /*heads: SAGAN has one*/, double dropout,
                                                Generator& init) {
  return std::make_unique<SaganAttention>(c, d_model, dropout, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
