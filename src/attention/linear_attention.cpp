// linear.cpp — linear attention (Katharopoulos, Vyas, Pappas, Fleuret 2020, "Transformers are RNNs: Fast
// Autoregressive Transformers with Linear Attention", ICML 2020; linearized attention §3.2, causal masking §3.3).
//
// The idea. Softmax attention weighs value j by sim(q_i, k_j) = e^(q_i·k_j / √d_k). Replace the similarity by a
// dot product of positive features, sim(q, k) = φ(q)·φ(k), with φ(x) = elu(x) + 1 (> 0 everywhere). Then the
// sum over keys can be taken BEFORE the queries are involved — matrix products associate:
//   out_i = Σ_j φ(q_i)·φ(k_j) v_j / Σ_j φ(q_i)·φ(k_j)
//         = φ(q_i)ᵀ (Σ_j φ(k_j) v_jᵀ) / (φ(q_i)ᵀ Σ_j φ(k_j) + ε)
//         = φ(q_i)ᵀ KV / (φ(q_i)ᵀ Z + ε),     KV = φ(K)ᵀ V [d_k, d_k],   Z = Σ_j φ(k_j) [d_k]
// KV and Z are computed once per head and shared by every query: no [n, n] matrix is ever formed.
//
// Causal (the decoder): query i may only use keys j ≤ i, so KV and Z become prefix sums,
//   S_i = Σ_{j ≤ i} φ(k_j) v_jᵀ [d_k, d_k],    Z_i = Σ_{j ≤ i} φ(k_j) [d_k],    out_i = φ(q_i)ᵀ S_i / (φ(q_i)ᵀ Z_i + ε)
// — which is an RNN whose state (S_i, Z_i) is updated by adding one outer product per token (the paper's title).
// Here the prefix sums are cumsum over the token axis of the outer products flattened to d_k² numbers (tensors
// are at most rank 4, so B and h are flattened into one axis); that stores every S_i, O(n · d_k²) per head.
// The paper's CUDA kernel avoids storing them by recomputing them in the backward pass.
//
// Masks. A padded key must contribute nothing to KV and Z, so φ(K) — not K — is multiplied by the key mask
// (φ(0) = 1, so zeroing K would still count the key). Linear attention works as cross-attention too: keys and
// values from the encoder's output, padding from the mask. There is no window (factory.cpp refuses one).
//
// ε = 1e-6 (as in the authors' library, fast-transformers) keeps the division finite when a query sees no key
// (all its keys padding: numerator and denominator both 0) — it then gets out = 0. Since φ > 0, a query that
// sees at least one key has a denominator > 0 anyway; ε shifts those outputs by a relative ~1e-6 / (φ(q)·Z).
// There is no matrix of attention weights to apply dropout to, so the module's dropout is not used.
//
// The map. Linear attention never forms a_ij, but it implies one:
//   a_ij = φ(q_i)·φ(k_j) / Σ_{allowed j'} φ(q_i)·φ(k_j')       (0 for a padded or future j)
// computed [B, h, Tq, Tk] only when ctx.recorder asks for it — then it costs O(n²) like scaled_dot.
//
// Parameters (PyTorch names): q_proj, k_proj, v_proj, out_proj, as scaled_dot.
//
// Cost: O(n · d_k² · h) = O(n · d² / h) time and O(h · d_k²) memory (non-causal; causal here stores
// O(n · h · d_k²)) — linear in the sentence length n, where scaled_dot is O(n² · d). Worth it when n ≫ d_k
// (long sequences), and for generation, where the RNN form makes each new token cost O(d_k²) whatever the
// length. The price: φ(q)·φ(k) cannot be as peaked as a softmax, so it usually attends less sharply and, on
// short sentences like translation's, is no faster.
#include "attention/attention.h"
#include "autograd/ops.h"
#include "nn/layers.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr real linear_attention_eps = real(1e-6);  // ε in out_i = φ(q_i)ᵀ KV / (φ(q_i)ᵀ Z + ε)

class LinearAttention : public Attention {
 public:
  LinearAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, Generator& init)
      : q_proj(register_module("q_proj", std::make_unique<Linear>(d_model, d_model, init))),
        k_proj(register_module("k_proj", std::make_unique<Linear>(d_model, d_model, init))),
        v_proj(register_module("v_proj", std::make_unique<Linear>(d_model, d_model, init))),
        out_proj(register_module("out_proj", std::make_unique<Linear>(d_model, d_model, init))),
        config_(c),
        heads_(heads) {}

  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override {
    const int64_t B = x.size(0), Tq = x.size(1), Tk = memory.size(1);
    if (mask.batch != B || mask.query_len != Tq || mask.key_len != Tk || (mask.causal && Tq != Tk)) {
      throw Error("linear attention (" + name + "): the mask is for " + std::to_string(mask.batch) + " × " +
                  std::to_string(mask.query_len) + " queries × " + std::to_string(mask.key_len) +
                  " keys (causal: " + (mask.causal ? "yes" : "no") + "), but the inputs are queries " +
                  x.shape().str() + " and keys " + memory.shape().str() +
                  " (a causal mask needs as many queries as keys)");
    }
    Tensor Q = split_heads(q_proj.forward(x), heads_);                      // [B, h, Tq, d_k]
    ctx.trace(*this, "q", Q);
    Tensor K = split_heads(k_proj.forward(memory), heads_);                 // [B, h, Tk, d_k]
    ctx.trace(*this, "k", K);
    Tensor V = split_heads(v_proj.forward(memory), heads_);                 // [B, h, Tk, d_k]
    ctx.trace(*this, "v", V);
    Tensor phi_Q = elu_plus_one(Q);                                         // [B, h, Tq, d_k], φ(q_i) > 0
    ctx.trace(*this, "phi_q", phi_Q);
    Tensor phi_K = mul(elu_plus_one(K), key_is_real(mask));                 // [B, h, Tk, d_k], 0 for padding
    ctx.trace(*this, "phi_k", phi_K);
    Tensor context = mask.causal ? causal_context(phi_Q, phi_K, V)          // [B, h, Tq, d_k]
                                 : global_context(phi_Q, phi_K, V);
    ctx.trace(*this, "context", context);
    if (ctx.recorder) ctx.recorder->record(name, implied_map(phi_Q, phi_K, mask));
    Tensor out = out_proj.forward(merge_heads(context));                    // [B, Tq, d_model]
    ctx.trace(out_proj, out);
    return out;
  }

  // Incremental decoding: the RNN form. The state (S, Z) starts at 0 and each real token adds its outer
  // product, S ← S + φ(k_t) v_tᵀ, Z ← Z + φ(k_t); the output is φ(q_t)ᵀ S / (φ(q_t)ᵀ Z + ε). O(d_k²) per head
  // and token whatever the length — no keys are kept at all. Cross-attention: S and Z of the source, once.
  AttentionCache start_self_cache(int64_t batch, int64_t /*capacity: the state does not grow*/) override {
    const int64_t d_k = q_proj.weight.size(0) / heads_;
    AttentionCache cache;
    cache.self = true;
    cache.batch = batch;
    cache.S = Tensor::zeros({batch, heads_, d_k, d_k});                     // [B, h, d_k, d_k]
    cache.Z = Tensor::zeros({batch, heads_, d_k});                          // [B, h, d_k]
    return cache;
  }
  AttentionCache start_cross_cache(const Tensor& memory, const std::vector<uint8_t>& memory_is_real) override {
    const int64_t B = memory.size(0), Tk = memory.size(1);
    AttentionMask mask;                                                     // the source's padding, for key_is_real()
    mask.batch = B;
    mask.key_len = Tk;
    mask.key_is_real = memory_is_real;
    Tensor phi_K = mul(elu_plus_one(split_heads(k_proj.forward(memory), heads_)), key_is_real(mask));
    Tensor V = split_heads(v_proj.forward(memory), heads_);                 // [B, h, Tk, d_k]
    AttentionCache cache;
    cache.self = false;
    cache.batch = B;
    cache.S = matmul(phi_K, V, /*transpose_a=*/true);                       // [B, h, d_k, d_k] = Σ_j φ(k_j) v_jᵀ
    cache.Z = sum(phi_K, 2);                                                // [B, h, d_k]      = Σ_j φ(k_j)
    for (int64_t b = 0; b < B; ++b) cache.source_row.push_back(b);          // row b reads sentence b's S, Z
    return cache;
  }
  Tensor step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) override {
    const int64_t B = x.size(0), h = heads_;
    Tensor phi_q = elu_plus_one(split_heads(q_proj.forward(x), h));        // [B, h, 1, d_k]
    const int64_t d_k = phi_q.size(3);
    if (cache.self) {
      Tensor phi_k = elu_plus_one(split_heads(k_proj.forward(x), h));      // [B, h, 1, d_k]
      Tensor v = split_heads(v_proj.forward(x), h);                         // [B, h, 1, d_k]
      for (int64_t row = 0; row < B * h; ++row) {
        if (!x_is_real[static_cast<size_t>(row / h)]) continue;             // a pad token adds nothing
        const real* k = phi_k.data() + row * d_k;
        real* S = cache.S.data() + row * d_k * d_k;
        for (int64_t c = 0; c < d_k; ++c) {
          for (int64_t e = 0; e < d_k; ++e) S[c * d_k + e] += k[c] * v.data()[row * d_k + e];  // S += φ(k_t) v_tᵀ
          cache.Z.data()[row * d_k + c] += k[c];                            // Z += φ(k_t)
        }
      }
    }
    Tensor context = Tensor::zeros({B, h, 1, d_k});                         // [B, h, 1, d_k]
    for (int64_t row = 0; row < B * h; ++row) {
      const real* q = phi_q.data() + row * d_k;                             // φ(q_t)
      const int64_t state_row = cache.kv_row(row / h) * h + row % h;        // cross: the sentence's state
      const real* S = cache.S.data() + state_row * d_k * d_k;
      real* out = context.data() + row * d_k;
      for (int64_t c = 0; c < d_k; ++c)
        for (int64_t e = 0; e < d_k; ++e) out[e] += q[c] * S[c * d_k + e];  // φ(q_t)ᵀ S
      const real denominator = dot_product(q, cache.Z.data() + state_row * d_k, d_k) + linear_attention_eps;
      for (int64_t e = 0; e < d_k; ++e) out[e] /= denominator;              // / (φ(q_t)·Z + ε)
    }
    ++cache.position;
    return out_proj.forward(merge_heads(context));                          // [B, 1, d_model]
  }

  Linear& q_proj;
  Linear& k_proj;
  Linear& v_proj;
  Linear& out_proj;

 private:
  // 1 for a real key, 0 for padding, [B, 1, Tk, 1]: broadcast over heads and features.
  static Tensor key_is_real(const AttentionMask& mask) {
    Tensor keep = Tensor::zeros({mask.batch, 1, mask.key_len, 1});          // [B, 1, Tk, 1]
    for (size_t t = 0; t < mask.key_is_real.size(); ++t) keep.data()[t] = mask.key_is_real[t] ? 1 : 0;
    return keep;
  }

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
    // φ(q_i)ᵀ S_i = Σ_c φ(q_i)_c · (row c of S_i), written as mul + sum rather than matmul: a [1, d_k] row times
    // a [d_k, d_k] matrix goes to Eigen's matrix–vector kernel, whose order of additions depends on where the
    // numbers happen to sit in memory (it peels off unaligned elements first), so the same inputs could round
    // differently from one call to the next. mul + sum always adds in the same order: an output at position i
    // then depends on the tokens j ≤ i alone, bit for bit.
    Tensor q_column = reshape(phi_Q, {N, d_k, 1});                          // [B·h·T, d_k, 1]  φ(q_i)
    Tensor rows = mul(q_column, reshape(S, {N, d_k, d_k}));                 // [B·h·T, d_k, d_k] φ(q_i)_c S_i[c, :]
    Tensor numerator = reshape(sum(rows, 1), {B, h, T, d_k});               // [B, h, T, d_k]   φ(q_i)ᵀ S_i
    Tensor denominator = sum(mul(phi_Q, Z), 3, /*keepdim=*/true);           // [B, h, T, 1]     φ(q_i)·Z_i
    return divide(numerator, add_scalar(denominator, linear_attention_eps));  // [B, h, T, d_k]
  }

  // a_ij = φ(q_i)·φ(k_j) / Σ_{allowed j'} φ(q_i)·φ(k_j'), 0 where j is not allowed; a query that sees no key
  // gets a row of zeros. A picture for the recorder, not part of the graph.
  Tensor implied_map(const Tensor& phi_Q, const Tensor& phi_K, const AttentionMask& mask) const {
    NoGradGuard no_graph;
    Tensor map = matmul(phi_Q, phi_K, false, /*transpose_b=*/true);         // [B, h, Tq, Tk] φ(q_i)·φ(k_j)
    const int64_t B = map.size(0), h = map.size(1), Tq = map.size(2), Tk = map.size(3);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t head = 0; head < h; ++head)
        for (int64_t i = 0; i < Tq; ++i) {
          real* row = map.data() + ((b * h + head) * Tq + i) * Tk;          // [Tk]
          real total = 0;                                                   // Σ_{allowed j'} φ(q_i)·φ(k_j')
          for (int64_t j = 0; j < Tk; ++j) {
            if (!mask.allowed(b, i, j, config_)) row[j] = 0;
            total += row[j];
          }
          for (int64_t j = 0; j < Tk; ++j) row[j] = total > 0 ? row[j] / total : real(0);
        }
    return map;
  }

  AttentionConfig config_;
  int64_t heads_;
};

}  // namespace

// `dropout` is accepted for the common interface but unused: linear attention forms no weights to drop.
std::unique_ptr<Attention> make_linear_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                 int64_t heads, double /*dropout*/, Generator& init) {
  return std::make_unique<LinearAttention>(c, d_model, heads, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
