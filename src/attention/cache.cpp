// cache.cpp — incremental decoding for the softmax kinds: the KV cache, and attention of one new query over it.
//
// Decoding without a cache runs the decoder over the whole prefix y_0 … y_t to get the next token's logits, so
// generating T tokens costs 1 + 2 + … + T = O(T²) position-passes. But under the causal mask position j's
// keys and values depend only on y_0 … y_j: once computed they never change. Kept in a cache, each step
// computes the newest position only:
//     k_t = x_t W_Kᵀ,  v_t = x_t W_Vᵀ            appended to the cache           [B, h, 1, d_k]
//     a_tj = softmax_j(score(q_t, k_j)),  j ≤ t  (and in the window, and real)
//     out_t = Σ_j a_tj v_j                                                       [B, h, 1, d_v]
// — O(T) position-passes for the whole sentence (each still attends over ≤ T keys, as it must). Cross-
// attention's keys and values come from the encoder's output, which is fixed: they are projected once.
// A window [left, right] needs only keys j ≥ t − left: the loop below visits only those, and the buffers keep
// only those — left + 1 keys, a ring in which key j goes to slot j mod (left + 1), overwriting key j − left − 1,
// which no query from t = j on can see. Memory O(window) instead of O(T), however long the output.
//
// Buffers: K and V have room for `capacity` keys (the length limit of the sentence, or left + 1 if smaller),
// allocated once, so a step writes into them instead of reallocating; if a caller outruns the capacity it
// doubles (never past left + 1 with a window: a full window buffer is the ring).
// The mask rule is the one of AttentionMask::allowed (mask.cpp): a key is visible when it is a real token and
// lies in the window around the query position; causality holds by construction (later keys are not there yet).
#include <algorithm>
#include <cmath>
#include <limits>

#include "attention/attention.h"
#include "tensor/parallel.h"
#include "tensor/row_math.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// rows[r] of x along axis 0 → row r of the result (x [N, …] → [rows.size(), …]).
Tensor gather_rows(const Tensor& x, const std::vector<int64_t>& rows) {
  if (!x.defined()) return x;
  std::vector<int64_t> sizes = x.shape().sizes();
  const int64_t N = sizes[0], row_size = N ? x.numel() / N : 0;
  sizes[0] = static_cast<int64_t>(rows.size());
  Tensor y = Tensor::zeros(Shape(sizes));
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r] < 0 || rows[r] >= N) throw Error("AttentionCache::reorder: row " + std::to_string(rows[r]) +
                                                 " of " + std::to_string(N));
    std::copy_n(x.data() + rows[r] * row_size, row_size, y.data() + static_cast<int64_t>(r) * row_size);
  }
  return y;
}

// Rows `rows` of a [B, h, capacity, d] buffer; only the first `filled` slots of each row are copied. When the
// number of rows stays the same (beam search's usual step) the buffer is reused: the filled slots go through a
// compact copy [B, h, filled, d] and back, instead of a new buffer of `capacity` keys per row.
Tensor gather_keys(Tensor buffer, const std::vector<int64_t>& rows, int64_t filled_slots) {
  const int64_t B = buffer.size(0), h = buffer.size(1), capacity = buffer.size(2), d = buffer.size(3);
  const int64_t N = static_cast<int64_t>(rows.size()), span = filled_slots * d;  // numbers per (row, head)
  std::vector<real> filled(static_cast<size_t>(B * h * span));               // [B, h, filled, d]
  for (int64_t row = 0; row < B * h; ++row)
    std::copy_n(buffer.data() + row * capacity * d, span, filled.data() + row * span);
  Tensor kept = N == B ? buffer : Tensor::zeros({N, h, capacity, d});        // [rows, h, capacity, d]
  for (int64_t r = 0; r < N; ++r) {
    if (rows[r] < 0 || rows[r] >= B) throw Error("AttentionCache::reorder: row " + std::to_string(rows[r]) +
                                                 " of " + std::to_string(B));
    for (int64_t head = 0; head < h; ++head)
      std::copy_n(filled.data() + (rows[r] * h + head) * span, span, kept.data() + (r * h + head) * capacity * d);
  }
  return kept;
}

// Moves the first `keys` keys of a [B, h, capacity, d] buffer into one with room for `capacity` keys.
Tensor regrow(const Tensor& buffer, int64_t keys, int64_t capacity) {
  const int64_t B = buffer.size(0), h = buffer.size(1), old_capacity = buffer.size(2), d = buffer.size(3);
  Tensor grown = Tensor::zeros({B, h, capacity, d});                          // [B, h, capacity, d]
  for (int64_t row = 0; row < B * h; ++row)
    std::copy_n(buffer.data() + row * old_capacity * d, keys * d, grown.data() + row * capacity * d);
  return grown;
}

}  // namespace

void AttentionCache::reorder(const std::vector<int64_t>& rows) {
  if (!self) {                                                               // the source's numbers stay put
    std::vector<int64_t> kept;
    for (int64_t r : rows) kept.push_back(source_row.at(static_cast<size_t>(r)));
    source_row = std::move(kept);
    batch = static_cast<int64_t>(rows.size());
    return;
  }
  const int64_t filled_slots = std::min(keys, capacity);                     // a ring's slots are all filled
  if (K.defined()) K = gather_keys(K, rows, filled_slots);
  if (V.defined()) V = gather_keys(V, rows, filled_slots);
  S = gather_rows(S, rows);
  Z = gather_rows(Z, rows);
  running_max = gather_rows(running_max, rows);
  running_sum = gather_rows(running_sum, rows);
  if (!key_is_real.empty()) {
    std::vector<uint8_t> kept(rows.size() * static_cast<size_t>(capacity));
    for (size_t r = 0; r < rows.size(); ++r)
      std::copy_n(key_is_real.begin() + rows[r] * capacity, capacity, kept.begin() + static_cast<int64_t>(r) * capacity);
    key_is_real = std::move(kept);
  }
  batch = static_cast<int64_t>(rows.size());
}

AttentionCache make_kv_cache(int64_t batch, int64_t heads, int64_t capacity, int64_t d_k, int64_t d_v,
                             const AttentionConfig& config) {
  AttentionCache cache;
  cache.self = true;
  cache.batch = batch;
  cache.most_keys = config.has_window ? config.window_left + 1 : 0;          // a causal query sees i − left … i
  cache.capacity = std::max<int64_t>(capacity, 1);
  if (cache.most_keys > 0) cache.capacity = std::min(cache.capacity, cache.most_keys);
  cache.K = Tensor::zeros({batch, heads, cache.capacity, d_k});               // [B, h, capacity, d_k]
  cache.V = Tensor::zeros({batch, heads, cache.capacity, d_v});               // [B, h, capacity, d_v]
  cache.key_is_real.assign(static_cast<size_t>(batch * cache.capacity), 0);  // [B, capacity]
  return cache;
}

AttentionCache make_kv_cache(const Tensor& K, const Tensor& V, const std::vector<uint8_t>& key_is_real) {
  AttentionCache cache;
  cache.self = false;
  cache.batch = K.size(0);
  cache.K = K;                                                                // [B, h, Tk, d_k]
  cache.V = V;                                                                // [B, h, Tk, d_v]
  cache.keys = cache.capacity = K.size(2);
  if (static_cast<int64_t>(key_is_real.size()) != cache.batch * cache.keys) {
    throw Error("make_kv_cache: a padding mask of " + std::to_string(key_is_real.size()) + " entries for keys " +
                K.shape().str());
  }
  cache.key_is_real = key_is_real;                                            // [B, Tk]
  for (int64_t b = 0; b < cache.batch; ++b) cache.source_row.push_back(b);
  return cache;
}

void append_key(AttentionCache& cache, const Tensor& K_new, const Tensor& V_new, const std::vector<uint8_t>& is_real) {
  const bool ring = cache.capacity == cache.most_keys;                        // full window: overwrite the oldest
  if (cache.keys == cache.capacity && !ring) {                                // outran the length limit: double
    const int64_t doubled = 2 * cache.capacity;
    const int64_t capacity = cache.most_keys > 0 ? std::min(doubled, cache.most_keys) : doubled;
    cache.K = regrow(cache.K, cache.keys, capacity);
    cache.V = regrow(cache.V, cache.keys, capacity);
    std::vector<uint8_t> flags(static_cast<size_t>(cache.batch * capacity), 0);
    for (int64_t b = 0; b < cache.batch; ++b)
      std::copy_n(cache.key_is_real.begin() + b * cache.capacity, cache.keys, flags.begin() + b * capacity);
    cache.key_is_real = std::move(flags);
    cache.capacity = capacity;
  }
  const int64_t B = cache.batch, h = cache.K.size(1), d_k = cache.K.size(3), d_v = cache.V.size(3);
  const int64_t slot = cache.slot(cache.keys), capacity = cache.capacity;    // the new key j = keys: j mod capacity
  for (int64_t row = 0; row < B * h; ++row) {                                 // row = b · h + head
    std::copy_n(K_new.data() + row * d_k, d_k, cache.K.data() + (row * capacity + slot) * d_k);   // K[b, head, slot]
    std::copy_n(V_new.data() + row * d_v, d_v, cache.V.data() + (row * capacity + slot) * d_v);   // V[b, head, slot]
  }
  for (int64_t b = 0; b < B; ++b) {
    cache.key_is_real[static_cast<size_t>(b * capacity + slot)] = is_real[static_cast<size_t>(b)];
  }
  ++cache.keys;
}

void softmax_in_place(std::vector<real>& a) {
  const real minus_infinity = -std::numeric_limits<real>::infinity();
  real max = minus_infinity;
  for (real score : a) max = std::max(max, score);
  if (max == minus_infinity) {                                                // no key visible: every weight 0
    std::fill(a.begin(), a.end(), real(0));
    return;
  }
  real total = 0;
  for (real& weight : a) {
    weight = std::exp(weight - max);                                          // e^(−inf) = 0 for hidden keys
    total += weight;
  }
  for (real& weight : a) weight /= total;                                     // a_ij
}

namespace {

// Ask the CPU to start loading the keys and values of query row `row` (slots [0, slots) of its [capacity, d]
// blocks), one 64-byte cache line at a time, while the row before it is computed. A batch's caches are far
// larger than the CPU's caches (100 sentences of the base model: about 20 MB of cross-attention keys and values
// over 3 layers), so every row's blocks come from memory; the hardware prefetcher follows a stream only within a
// 4 KiB page, and a row's keys are a new 8 KiB block, so without this each row started with misses of full memory
// latency. Batched decoding, base model, 2 threads (`attnlab bench`, 5 alternated runs each): greedy 278–293 →
// 296–310 sentences/s, beam 62–66 → 65–67.
void prefetch_keys_and_values(const AttentionCache& cache, int64_t row, int64_t slots) {
  const int64_t h = cache.K.size(1), capacity = cache.capacity;
  const int64_t key_row = cache.kv_row(row / h) * h + row % h;
  const char* k = reinterpret_cast<const char*>(cache.K.data() + key_row * capacity * cache.K.size(3));
  const char* v = reinterpret_cast<const char*>(cache.V.data() + key_row * capacity * cache.V.size(3));
  const int64_t k_bytes = slots * cache.K.size(3) * int64_t(sizeof(real));
  const int64_t v_bytes = slots * cache.V.size(3) * int64_t(sizeof(real));
  for (int64_t byte = 0; byte < k_bytes; byte += 64) __builtin_prefetch(k + byte);
  for (int64_t byte = 0; byte < v_bytes; byte += 64) __builtin_prefetch(v + byte);
}

}  // namespace

Tensor attend_cached(const AttentionCache& cache, const AttentionConfig& config, const StepScore& score,
                     const StepWeights& weights) {
  const real minus_infinity = -std::numeric_limits<real>::infinity();
  const int64_t B = cache.batch, h = cache.K.size(1), capacity = cache.capacity;
  const int64_t d_k = cache.K.size(3), d_v = cache.V.size(3), i = cache.position;
  // The keys a query at position i may see: all filled ones, or only those in its window.
  int64_t first = 0, end = cache.keys;                                        // keys j ∈ [first, end)
  if (config.has_window) {
    first = std::max<int64_t>(0, i - config.window_left);
    end = std::min<int64_t>(cache.keys, i + config.window_right + 1);
  }
  Tensor context = Tensor::zeros({B, h, 1, d_v});                             // [B, h, 1, d_v]
  // Rows are independent (each writes its own context row; `score` only reads), so a batch's rows are shared
  // among the threads when there is enough work; the same bits on any thread count. The work is B·h·keys·(d_k +
  // d_v) multiply-adds through a kind's score function (one call per key), and it pays to wake the threads only
  // from about 8 × worth_threads' 16 K numbers: one sentence's beam (4 rows, 4 heads, 32 source words, d_k = d_v = 32)
  // has 32 K, about 10 µs, and sharing that in every layer made small-model beam search 8 % slower on 2 threads.
  const int64_t keys = std::max<int64_t>(end - first, 0);
  const int64_t multiply_adds = B * h * keys * (d_k + d_v);
  // The next row's keys and values are fetched ahead (above) when the whole cache is larger than a core's L2
  // cache, 1 MiB here — a batch; one sentence's cache (64 KiB for the base model's cross-attention) is there already.
  const bool prefetch = B * h * capacity * (d_k + d_v) * int64_t(sizeof(real)) > (int64_t(1) << 20);
  parallel_region(worth_threads(multiply_adds / 8), [&] {                      // (tensor/parallel.h)
    std::vector<real> a(static_cast<size_t>(keys));                           // the weights a_ij of one row
#pragma omp for schedule(static)
    for (int64_t row = 0; row < B * h; ++row) {                               // the query's row
      const int64_t b = row / h, head = row % h;
      const int64_t kb = cache.kv_row(b), key_row = kb * h + head;            // the keys' row
      if (prefetch && row + 1 < B * h) prefetch_keys_and_values(cache, row + 1, std::min(capacity, end));
      for (int64_t j = first; j < end; ++j) {
        const int64_t slot = cache.slot(j);                                   // where key j is kept
        const bool visible = cache.key_is_real[static_cast<size_t>(kb * capacity + slot)] != 0;
        a[j - first] = visible ? score(row, cache.K.data() + (key_row * capacity + slot) * d_k) : minus_infinity;
      }
      if (weights) {
        weights(row, first, a);                                               // the kind's own rule
      } else {
        softmax_in_place(a);                                                  // as softmax() does it
      }
      real* out = context.data() + row * d_v;                                 // [d_v]
      for (int64_t j = first; j < end; ++j) {
        const real weight = a[j - first];                                     // a_ij
        if (weight == 0) continue;                                            // a hidden key adds nothing
        const real* v = cache.V.data() + (key_row * capacity + cache.slot(j)) * d_v;   // v_j [d_v]
        for (int64_t c = 0; c < d_v; ++c) out[c] += weight * v[c];            // Σ_j a_ij v_j
      }
    }
  });
  return context;
}

real dot_product(const real* a, const real* b, int64_t n) { return row_dot(a, b, n); }

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
