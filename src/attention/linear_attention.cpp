// linear_attention.cpp — linear attention (Katharopoulos, Vyas, Pappas, Fleuret 2020, "Transformers are RNNs: Fast
// Autoregressive Transformers with Linear Attention", ICML 2020; linearized attention §3.2, causal masking §3.3).
//   score_ij = φ(q_i) · φ(k_j),  φ = elu + 1,  out_i = Σ_j score_ij v_j / Σ_j score_ij
// The score. Softmax attention weighs value j by sim(q_i, k_j) = e^(q_i·k_j / √d_k). Replace it by a dot product
// of positive features, score_ij = φ(q_i)·φ(k_j) with φ(x) = elu(x) + 1 (> 0 everywhere), normalised by its sum.
// Then the sum over keys can be taken BEFORE the queries are involved — matrix products associate:
//   out_i = Σ_j φ(q_i)·φ(k_j) v_j / Σ_j φ(q_i)·φ(k_j)
//         = φ(q_i)ᵀ KV / (φ(q_i)ᵀ Z + ε),     KV = Σ_j φ(k_j) v_jᵀ = φ(K)ᵀ V [d_k, d_k],   Z = Σ_j φ(k_j) [d_k]
// KV and Z are computed once per head and shared by every query: no [n, n] matrix is ever formed.
// Causal (the decoder): query i may only use keys j ≤ i, so KV and Z become prefix sums S_i and Z_i — an RNN whose
// state gains one outer product per token (the paper's title; state_cache.cpp decodes that way). Here they are
// cumsum over the tokens of the outer products, storing every S_i: O(n · d_k²) per head (the paper's CUDA kernel
// recomputes them in the backward pass instead).
// Masks. A padded key must add nothing to KV and Z, so φ(K) — not K — is multiplied by the key mask (φ(0) = 1).
// It works as cross-attention too. No window (factory.cpp refuses one), no dropout (no weights); parameters as
// scaled_dot's (q_proj, k_proj, v_proj, out_proj).
// ε = 1e-6 (as fast-transformers) keeps out = 0 for a query that sees no key (0 / 0); otherwise φ > 0 makes the
// denominator > 0 and ε shifts the output by a relative ~1e-6 / (φ(q)·Z).
// The map. attend() never forms the scores, but they imply a_ij = φ(q_i)·φ(k_j) / Σ_{allowed j'} φ(q_i)·φ(k_j')
// (0 for a padded or future j), computed [B, h, Tq, Tk] only when ctx.recorder asks — then O(n²) like scaled_dot.
// Cost: O(n · d² / h) time, O(h · d_k²) memory (causal here: O(n · h · d_k²)) — linear in the length n, where
// scaled_dot is O(n² · d): worth it for long sequences, and for generation (each token costs O(d_k²) whatever the
// length). The price: φ(q)·φ(k) is never as peaked as a softmax; on translation's short sentences it is no faster.
#include "attention/multi_head.h"
#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr real linear_attention_eps = real(1e-6);  // ε in out_i = φ(q_i)ᵀ KV / (φ(q_i)ᵀ Z + ε)

class LinearAttention : public MultiHeadAttention {
 public:
  LinearAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, Generator& init)
      : MultiHeadAttention(c, d_model, heads, /*dropout=*/0) {
    add_projections(d_model, init);                                         // W_Q, W_K, W_V, W_O
  }

  // The score: the similarity φ(q_i)·φ(k_j), [B, h, Tq, Tk]. Only the map (implied_map) is made of it.
  Tensor score(const Tensor& Q, const Tensor& K, ForwardContext&) override {
    return matmul(elu_plus_one(Q), elu_plus_one(K), false, /*transpose_b=*/true);   // [B, h, Tq, Tk]
  }

  // out_i = φ(q_i)ᵀ Σ_j φ(k_j) v_jᵀ / (φ(q_i)ᵀ Σ_j φ(k_j) + ε), the sums over the keys query i may see.
  Tensor attend(const Tensor& Q, const Tensor& K, const Tensor& V, const AttentionMask& mask, const Tensor&,
                ForwardContext& ctx) override {
    if (mask.causal && Q.size(2) != K.size(2)) throw Error("linear attention " + name + ": causal, Tq ≠ Tk");
    Tensor phi_Q = elu_plus_one(Q);                                         // [B, h, Tq, d_k], φ(q_i) > 0
    ctx.trace(*this, "phi_q", phi_Q);
    Tensor phi_K = mul(elu_plus_one(K), real_keys(mask.key_is_real, {mask.batch, 1, mask.key_len, 1}));  // 0: pad
    ctx.trace(*this, "phi_k", phi_K);
    if (ctx.recorder) ctx.recorder->record(name, implied_map(Q, K, mask, ctx));
    return mask.causal ? causal_context(phi_Q, phi_K, V)                    // [B, h, Tq, d_k]
                       : global_context(phi_Q, phi_K, V);
  }

  // Incremental decoding, the RNN form (state_cache.cpp): S and Z, 0 at first, gain φ(k_t) v_tᵀ and φ(k_t) per
  // real token; a step reads φ(q_t)ᵀ S / (φ(q_t)ᵀ Z + ε). Cross-attention: the source's S and Z, once.
  AttentionCache start_self_cache(int64_t batch, int64_t /*capacity: the state does not grow*/) override {
    return make_linear_state(batch, heads_, head_width(k_proj), head_width(v_proj));
  }
  AttentionCache start_cross_cache(const Tensor& memory, const std::vector<uint8_t>& memory_is_real) override {
    Tensor keep = real_keys(memory_is_real, {memory.size(0), 1, memory.size(1), 1});   // [B, 1, Tk, 1]
    return make_linear_state(mul(elu_plus_one(project(k_proj, memory)), keep), project(v_proj, memory));
  }
  void remember(AttentionCache& cache, const Tensor& K_new, const Tensor& V_new,
                const std::vector<uint8_t>& is_real) override {
    add_to_linear_state(cache, elu_plus_one(K_new), V_new, is_real);        // S += φ(k_t) v_tᵀ, Z += φ(k_t)
  }
  Tensor attend_step(const Tensor& Q, const Tensor&, const AttentionCache& cache) override {
    return read_linear_state(cache, elu_plus_one(Q), linear_attention_eps);  // [B, h, 1, d_v]
  }

 private:
  // Every query sees every (real) key: out_i = φ(q_i)ᵀ KV / (φ(q_i)ᵀ Z + ε).
  static Tensor global_context(const Tensor& phi_Q, const Tensor& phi_K, const Tensor& V) {
    Tensor KV = matmul(phi_K, V, /*transpose_a=*/true);                     // [B, h, d_k, d_k] = Σ_j φ(k_j) v_jᵀ
    Tensor Z = sum(phi_K, 2, /*keepdim=*/true);                             // [B, h, 1, d_k]   = Σ_j φ(k_j)
    Tensor numerator = matmul(phi_Q, KV);                                   // [B, h, Tq, d_k]  = φ(q_i)ᵀ KV
    Tensor denominator = matmul(phi_Q, Z, false, /*transpose_b=*/true);     // [B, h, Tq, 1]    = φ(q_i)·Z
    return divide(numerator, add_scalar(denominator, linear_attention_eps));  // [B, h, Tq, d_k]
  }
  // Query i sees keys j ≤ i: out_i = φ(q_i)ᵀ S_i / (φ(q_i)ᵀ Z_i + ε), S and Z prefix sums over the tokens.
  static Tensor causal_context(const Tensor& phi_Q, const Tensor& phi_K, const Tensor& V) {
    const int64_t B = phi_Q.size(0), h = phi_Q.size(1), T = phi_Q.size(2), d_k = phi_Q.size(3);
    const int64_t N = B * h * T;                                            // one matrix per (sentence, head, token)
    Tensor k_column = reshape(phi_K, {N, d_k, 1});                          // [B·h·T, d_k, 1]  φ(k_j)
    Tensor v_row = reshape(V, {N, 1, d_k});                                 // [B·h·T, 1, d_k]  v_jᵀ
    Tensor outer = matmul(k_column, v_row);                                 // [B·h·T, d_k, d_k] φ(k_j) v_jᵀ
    Tensor S = cumsum(reshape(outer, {B * h, T, d_k * d_k}), 1);            // [B·h, T, d_k²]   S_i = Σ_{j≤i} …
    Tensor Z = cumsum(phi_K, 2);                                            // [B, h, T, d_k]   Z_i = Σ_{j≤i} φ(k_j)
    // φ(q_i)ᵀ S_i as mul + sum, not matmul: Eigen's matrix–vector kernel adds in an order that depends on where the
    // numbers sit in memory; mul + sum adds in one order, so output i depends on the tokens j ≤ i alone, bit for bit.
    Tensor q_column = reshape(phi_Q, {N, d_k, 1});                          // [B·h·T, d_k, 1]  φ(q_i)
    Tensor rows = mul(q_column, reshape(S, {N, d_k, d_k}));                 // [B·h·T, d_k, d_k] φ(q_i)_c S_i[c, :]
    Tensor numerator = reshape(sum(rows, 1), {B, h, T, d_k});               // [B, h, T, d_k]   φ(q_i)ᵀ S_i
    Tensor denominator = sum(mul(phi_Q, Z), 3, /*keepdim=*/true);           // [B, h, T, 1]     φ(q_i)·Z_i
    return divide(numerator, add_scalar(denominator, linear_attention_eps));  // [B, h, T, d_k]
  }
  // a_ij = φ(q_i)·φ(k_j) / Σ_{allowed j'} φ(q_i)·φ(k_j') (a row of 0s for a query that sees no key): a picture.
  Tensor implied_map(const Tensor& Q, const Tensor& K, const AttentionMask& mask, ForwardContext& ctx) {
    NoGradGuard no_graph;
    Tensor visible = exp(mask.additive(config_));                           // [B, 1, Tq, Tk]  1 or e^(−∞) = 0
    return divide_by_sum(mul(score(Q, K, ctx), visible), -1, real(1e-30));  // [B, h, Tq, Tk], rows sum to 1
  }
};

}  // namespace

std::unique_ptr<Attention> make_linear_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                 int64_t heads, double /*dropout: no weights to drop*/,
                                                 Generator& init) {
  return std::make_unique<LinearAttention>(c, d_model, heads, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
