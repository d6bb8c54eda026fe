// state_cache.cpp — incremental decoding for the kinds that keep a running state instead of their keys.
//
// Linear attention is an RNN (Katharopoulos et al. 2020, §3.4): under the causal mask its output at position t is
//     out_t = φ(q_t)ᵀ S_t / (φ(q_t)ᵀ Z_t + ε),     S_t = S_{t−1} + φ(k_t) v_tᵀ [d_k, d_v],   Z_t = Z_{t−1} + φ(k_t)
// so a step adds one outer product to the state and reads it: O(d_k · d_v) per head, whatever the length. For
// cross-attention S and Z are the source's sums, computed once.
// External attention's token softmax in the decoder is a prefix softmax (ops/attention_ops.cpp): down each slot's
// column a running max M and a running sum l, which the cache carries from step to step:
//     z_s = q_t · M_k[s];   if z_s > M_s: l_s ← l_s · e^(M_s − z_s), M_s ← z_s;   l_s ← l_s + e^(z_s − M_s)
//     ã_s = e^(z_s − M_s) / l_s
// A pad token changes no state and reads nothing (its row of ã is 0).
#include <cmath>
#include <limits>

#include "attention/attention.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

AttentionCache make_linear_state(int64_t batch, int64_t heads, int64_t d_k, int64_t d_v) {
  AttentionCache cache;
  cache.batch = batch;
  cache.S = Tensor::zeros({batch, heads, d_k, d_v});                        // [B, h, d_k, d_v]
  cache.Z = Tensor::zeros({batch, heads, d_k});                             // [B, h, d_k]
  return cache;
}

AttentionCache make_linear_state(const Tensor& phi_K, const Tensor& V) {
  AttentionCache cache;
  cache.self = false;
  cache.batch = phi_K.size(0);
  cache.S = matmul(phi_K, V, /*transpose_a=*/true);                         // [B, h, d_k, d_v] = Σ_j φ(k_j) v_jᵀ
  cache.Z = sum(phi_K, 2);                                                  // [B, h, d_k]      = Σ_j φ(k_j)
  for (int64_t b = 0; b < cache.batch; ++b) cache.source_row.push_back(b);  // row b reads sentence b's S, Z
  return cache;
}

void add_to_linear_state(AttentionCache& cache, const Tensor& phi_k, const Tensor& v,
                         const std::vector<uint8_t>& is_real) {
  const int64_t h = phi_k.size(1), d_k = phi_k.size(3), d_v = v.size(3);
  for (int64_t row = 0; row < cache.batch * h; ++row) {                     // row = b · h + head
    if (!is_real[static_cast<size_t>(row / h)]) continue;                   // a pad token adds nothing
    const real* k = phi_k.data() + row * d_k;                               // φ(k_t) [d_k]
    const real* value = v.data() + row * d_v;                               // v_t [d_v]
    real* S = cache.S.data() + row * d_k * d_v;                             // [d_k, d_v]
    for (int64_t c = 0; c < d_k; ++c) {
      for (int64_t e = 0; e < d_v; ++e) S[c * d_v + e] += k[c] * value[e];  // S += φ(k_t) v_tᵀ
      cache.Z.data()[row * d_k + c] += k[c];                                // Z += φ(k_t)
    }
  }
}

Tensor read_linear_state(const AttentionCache& cache, const Tensor& phi_q, real eps) {
  const int64_t B = phi_q.size(0), h = phi_q.size(1), d_k = phi_q.size(3), d_v = cache.S.size(3);
  Tensor context = Tensor::zeros({B, h, 1, d_v});                           // [B, h, 1, d_v]
  for (int64_t row = 0; row < B * h; ++row) {
    const real* q = phi_q.data() + row * d_k;                               // φ(q_t)
    const int64_t state_row = cache.kv_row(row / h) * h + row % h;          // cross: the sentence's state
    const real* S = cache.S.data() + state_row * d_k * d_v;
    real* out = context.data() + row * d_v;
    for (int64_t c = 0; c < d_k; ++c)
      for (int64_t e = 0; e < d_v; ++e) out[e] += q[c] * S[c * d_v + e];    // φ(q_t)ᵀ S
    const real denominator = dot_product(q, cache.Z.data() + state_row * d_k, d_k) + eps;
    for (int64_t e = 0; e < d_v; ++e) out[e] /= denominator;                // / (φ(q_t)·Z + ε)
  }
  return context;
}

AttentionCache make_running_softmax(int64_t batch, int64_t heads, int64_t slots) {
  AttentionCache cache;
  cache.batch = batch;
  cache.running_max = Tensor::full({batch, heads, slots}, -std::numeric_limits<real>::infinity());  // [B, h, S]
  cache.running_sum = Tensor::zeros({batch, heads, slots});                                          // [B, h, S]
  return cache;
}

Tensor running_softmax(AttentionCache& cache, const Tensor& z, const std::vector<uint8_t>& is_real) {
  const int64_t h = z.size(1), slots = z.size(3);
  Tensor weights = Tensor::zeros(z.shape());                                // [B, h, 1, S], ã
  for (int64_t row = 0; row < cache.batch * h; ++row) {
    if (!is_real[static_cast<size_t>(row / h)]) continue;                   // hidden: ã = 0, state unchanged
    real* M = cache.running_max.data() + row * slots;                       // [S]
    real* l = cache.running_sum.data() + row * slots;                       // [S]
    for (int64_t s = 0; s < slots; ++s) {
      const real score = z.data()[row * slots + s];                         // z_s = q_t · M_k[s]
      if (score > M[s]) {                                                   // a new max: rescale the old sum
        l[s] *= std::exp(M[s] - score);
        M[s] = score;
      }
      const real term = std::exp(score - M[s]);                             // e^(z − M), in [0, 1]
      l[s] += term;
      weights.data()[row * slots + s] = term / l[s];                        // ã_s
    }
  }
  return weights;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
