// exercise.h — what the kv_cache_step exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/tensor.h"

namespace attnlab::exercises {

// The KV cache of one attention head: the keys and values of every position decoded so far, one row each.
struct KVCache {
  int64_t d_k = 0, d_v = 0;
  std::vector<real> K;  // [keys, d_k], row-major: key j is K[j * d_k] … K[j * d_k + d_k − 1]
  std::vector<real> V;  // [keys, d_v]: value j is V[j * d_v] … V[j * d_v + d_v − 1]
  int64_t keys() const { return d_k > 0 ? static_cast<int64_t>(K.size()) / d_k : 0; }
};

// One step of incremental decoding at position t = cache.keys(): q, k [d_k] and v [d_v] are the newest position's.
// Appends k and v to the cache, and returns the attention of q over every cached key, out_t [d_v]:
// out_t = Σ_j softmax_j(q · k_j / √d_k) v_j, j = 0 … t.
Tensor kv_cache_step(KVCache& cache, const Tensor& q, const Tensor& k, const Tensor& v);

}  // namespace attnlab::exercises
