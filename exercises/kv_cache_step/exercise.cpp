// Exercise kv_cache_step (chapter attention): one step of incremental decoding with a KV cache.
//
// A decoder writes its output one token at a time, and its self-attention is causal: position t attends to
// positions 0 … t only. Decoding without a cache runs the whole prefix through the decoder at every step, so T
// tokens cost 1 + 2 + … + T position-passes. But under the causal mask the keys and values of positions 0 … t−1
// do not change when token t arrives: keep them (the KV cache), and each step computes the newest position only.
//
//   step t:   the newest position's q_t, k_t [d_k] and v_t [d_v]
//             K ← K with k_t appended,  V ← V with v_t appended          the cache now holds keys 0 … t
//             s_j  = q_t · k_j / √d_k                 j = 0 … t          one score per cached key
//             a_tj = e^(s_j) / Σ_j' e^(s_j')                             softmax over the keys
//             out_t = Σ_j a_tj v_j                    [d_v]
//
// out_t is row t of full causal attention softmax(Q Kᵀ / √d_k + causal mask) V over the whole sequence: the
// causal mask hides keys j > t, and the cache simply does not have them yet.
//
// Shapes: q, k [d_k], v [d_v], one head's (q.data()[c] is q_c). The cache (exercise.h) keeps the rows in
// std::vectors: key j at cache.K.data() + j * cache.d_k, value j at cache.V.data() + j * cache.d_v; cache.keys()
// says how many it holds. Return out_t as a Tensor [d_v]: Tensor::zeros({cache.d_v}) to start.
// attention/attention.h has three helpers: score_scale(d_k) = 1/√d_k, dot_product(a, b, n) = Σ_c a_c b_c, and
// softmax_in_place(a), a softmax of a std::vector<real> of scores.
//
// Check:  tools/exercise.sh kv_cache_step
//   runs the library's causal self-attention over a whole sequence (src/attention/multi_head.cpp), feeds your
//   function its q_t, k_t, v_t one step at a time, and compares out_t with row t of the library's output.
#include "attention/attention.h"
#include "exercise.h"

namespace attnlab::exercises {

Tensor kv_cache_step(KVCache& cache, const Tensor& q, const Tensor& k, const Tensor& v) {
  Tensor out = Tensor::zeros({cache.d_v});                           // [d_v], out_t
  // TODO: append k and v to the cache, then out_t = Σ_j softmax_j(q · k_j / √d_k) v_j over every cached key.
  return out;
}

}  // namespace attnlab::exercises
