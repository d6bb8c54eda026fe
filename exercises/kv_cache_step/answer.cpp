// answer.cpp — the project's answer to the kv_cache_step exercise. Try exercise.cpp first: the check tells you
// where you are wrong.
//
// The library's cache is the same idea for every head and sentence of a batch at once (src/attention/cache.cpp):
// MultiHeadAttention::step() (multi_head.cpp) projects the newest position, remember() → append_key() writes its
// key and value into preallocated buffers [B, h, capacity, d], and attend_cached() runs the loop below over the
// cached keys, with a kind's own score (score_one) and the padding and window rules.
#include "attention/attention.h"
#include "exercise.h"

namespace attnlab::exercises {

namespace {

// Appends one row (x's numbers) to a row-major block of rows.
void append_row(std::vector<real>& rows, const Tensor& x) {
  rows.insert(rows.end(), x.data(), x.data() + x.numel());
}

}  // namespace

Tensor kv_cache_step(KVCache& cache, const Tensor& q, const Tensor& k, const Tensor& v) {
  append_row(cache.K, k);                                            // first the cache: k_t after k_0 … k_{t−1}
  append_row(cache.V, v);                                            // and v_t
  const int64_t keys = cache.keys();                                 // t + 1: position t sees itself too
  const int64_t d_k = cache.d_k, d_v = cache.d_v;
  const real scale = score_scale(d_k);                               // 1/√d_k
  std::vector<real> a(static_cast<size_t>(keys));                    // [t + 1] the scores, then the weights
  for (int64_t j = 0; j < keys; ++j) a[j] = scale * dot_product(q.data(), cache.K.data() + j * d_k, d_k);
  softmax_in_place(a);                                               // over the keys: Σ_j a_tj = 1
  Tensor out = Tensor::zeros({d_v});                                 // [d_v]
  for (int64_t j = 0; j < keys; ++j) {
    for (int64_t c = 0; c < d_v; ++c) out.data()[c] += a[j] * cache.V[j * d_v + c];   // Σ_j a_tj v_j
  }
  return out;
}

}  // namespace attnlab::exercises
