// sagan.cpp — the self-attention of SAGAN (Zhang, Goodfellow, Metaxas & Odena 2019, "Self-Attention Generative
// Adversarial Networks", §3), on sequences instead of image feature maps. One head.
//   score_ij = q_i · k_j (/ √(d/8))               one head; out = γ · softmax(scores + mask) V
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

#include "attention/scaled_dot.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// The size of the queries' and keys' space: d_model / 8, at least 1.
int64_t query_key_size(int64_t d_model) { return std::max<int64_t>(1, d_model / 8); }

// scaled_dot's score over one head, with its own projections and the gate γ in place of W_O.
class SaganAttention : public ScaledDotAttention {
 public:
  SaganAttention(const AttentionConfig& c, int64_t d_model, double dropout, Generator& init)
      : ScaledDotAttention(c, d_model, /*heads=*/1, dropout, /*d_k=*/query_key_size(d_model)) {
    q_proj = add_projection("q_proj", d_model, query_key_size(d_model), init);   // f(x): d → d/8
    k_proj = add_projection("k_proj", d_model, query_key_size(d_model), init);   // g(x): d → d/8
    v_proj = add_projection("v_proj", d_model, d_model, init);                   // h(x): d → d
    gamma = register_parameter("gamma", Tensor::zeros({1}));                    // γ = 0: the layer starts silent
  }

  // out = γ · context: the heads' (one head's) output, gated; no W_O.
  Tensor output(const Tensor& context, ForwardContext& ctx) override {
    Tensor out = mul(gamma, context);                                        // [B, T, d] = γ · context
    ctx.trace(*this, "out", out);
    return out;
  }

  Tensor gamma;  // [1], starts at 0
};

}  // namespace

std::unique_ptr<Attention> make_sagan_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                int64_t /*heads: SAGAN has one*/, double dropout,
                                                Generator& init) {
  return std::make_unique<SaganAttention>(c, d_model, dropout, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
