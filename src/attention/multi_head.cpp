// multi_head.cpp — the frame of multi-head attention, run top to bottom (multi_head.h lists what a kind changes).
//
//   Q = x W_Qᵀ,  K = m W_Kᵀ,  V = m W_Vᵀ                  split into heads: [B, h, T, d_k]
//   head_h = dropout(softmax(score(Q_h, K_h) + mask)) V_h   the kind's score; for scaled_dot Q_h K_hᵀ / √d_k
//   out    = concat(head_1 … head_h) W_Oᵀ
// With scaled_dot's score this file is the paper's §3.2 chain, op by op (the paper's path, model.path: paper);
// scaled_dot.cpp puts the fused kernels one call beside it.
#include "attention/multi_head.h"

#include <cmath>

#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

Tensor MultiHeadAttention::forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask,
                                   ForwardContext& ctx) {
  check_mask(x, memory, mask);
  Tensor Q = project(q_proj, x);                                             // [B, h, Tq, d_k]
  ctx.trace(*this, "q", Q);
  Tensor K, V;                                                               // external: none (learned slots)
  if (memory_gives_keys_) {
    K = project(k_proj, memory);                                             // [B, h, Tk, d_k]
    ctx.trace(*this, "k", K);
    V = k_proj || v_proj ? project(v_proj, memory) : K;                      // [B, h, Tk, d_v] (simplified: K)
    ctx.trace(*this, "v", V);
  }
  Tensor context = attend(Q, K, V, mask, x, ctx);                            // [B, h, Tq, d_v]
  ctx.trace(*this, "context", context);
  return output(merge_heads(context), ctx);                                  // [B, Tq, d_model]
}

// The softmax kinds' attention, for every head at once:  a = softmax(score(Q, K) + mask),  context = dropout(a) V.
Tensor MultiHeadAttention::attend(const Tensor& Q, const Tensor& K, const Tensor& V, const AttentionMask& mask,
                                  const Tensor& x, ForwardContext& ctx) {
  Tensor scores = score(Q, K, ctx);                                          // [B, h, Tq, Tk]
  Tensor a = weigh(scores, mask, x, ctx);                                    // [B, h, Tq, Tk], rows sum to 1
  ctx.trace(*this, "weights", a);
  if (ctx.recorder) ctx.recorder->record(name, a);                          // the map the pictures show
  return matmul(mixing(a, scores, mask, ctx), V);                            // [B, h, Tq, d_v]
}

Tensor MultiHeadAttention::weigh(const Tensor& scores, const AttentionMask& mask, const Tensor&, ForwardContext& ctx) {
  const Tensor additive_mask = mask.additive(config_);                      // [B, 1, Tq, Tk], 0 or −∞
  ctx.trace(*this, "scores", scores, additive_mask);                         // as the softmax sees them
  return softmax(scores, additive_mask);                                     // [B, h, Tq, Tk]
}

Tensor MultiHeadAttention::mixing(const Tensor& a, const Tensor&, const AttentionMask&, ForwardContext& ctx) {
  return apply_dropout(a, dropout_, ctx);                                    // [B, h, Tq, Tk]
}

Tensor MultiHeadAttention::output(const Tensor& context, ForwardContext& ctx) {
  Tensor out = out_proj->forward(context);                                   // [B, T, d_model]
  ctx.trace(*out_proj, out);
  return out;
}

// ---- Incremental decoding: the same frame for the newest position only (cache.cpp keeps the keys) ----

AttentionCache MultiHeadAttention::start_self_cache(int64_t batch, int64_t capacity) {
  return make_kv_cache(batch, heads_, capacity, head_width(k_proj), head_width(v_proj), config_);
}

AttentionCache MultiHeadAttention::start_cross_cache(const Tensor& memory, const std::vector<uint8_t>& memory_is_real) {
  if (!memory_gives_keys_) throw Error("attention " + name + ": this kind cannot be cross-attention");
  return make_kv_cache(project(k_proj, memory), project(v_proj, memory), memory_is_real);  // [B, h, Tk, d]
}

Tensor MultiHeadAttention::step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) {
  Tensor Q = project(q_proj, x);                                             // [B, h, 1, d_k]
  if (cache.self) remember(cache, project(k_proj, x), project(v_proj, x), x_is_real);   // k_t, v_t [B, h, 1, d]
  Tensor context = attend_step(Q, x, cache);                                 // [B, h, 1, d_v]
  ++cache.position;
  ForwardContext untraced;
  return output(merge_heads(context), untraced);                             // [B, 1, d_model]
}

void MultiHeadAttention::remember(AttentionCache& cache, const Tensor& K_new, const Tensor& V_new,
                                  const std::vector<uint8_t>& is_real) {
  append_key(cache, K_new, V_new, is_real);
}

Tensor MultiHeadAttention::attend_step(const Tensor& Q, const Tensor&, const AttentionCache& cache) {
  return attend_keys(Q, cache);                                              // softmax_j(score_one(q_t, k_j)) v_j
}

Tensor MultiHeadAttention::attend_keys(const Tensor& Q, const AttentionCache& cache, const StepWeights& weights) const {
  const int64_t h = Q.size(1), d_k = Q.size(3);
  return attend_cached(
      cache, config_,
      [&](int64_t row, const real* k) { return score_one(row % h, Q.data() + row * d_k, k, d_k); },  // row = b·h + head
      weights);                                                              // [B, h, 1, d_v]
}

real MultiHeadAttention::score_one(int64_t, const real*, const real*, int64_t) const {
  throw Error("attention " + name + ": this kind scores no cached key one at a time");
}

// ---- The projections, and the inputs' shapes ----

void MultiHeadAttention::check_mask(const Tensor& x, const Tensor& memory, const AttentionMask& mask) const {
  const int64_t B = x.size(0), Tq = x.size(1), Tk = memory.size(1);
  if (mask.batch != B || mask.query_len != Tq || mask.key_len != Tk) {
    throw Error("attention " + name + ": the mask is for " + std::to_string(mask.batch) + " × " +
                std::to_string(mask.query_len) + " queries × " + std::to_string(mask.key_len) +
                " keys, but the inputs are queries " + x.shape().str() + " and keys " + memory.shape().str());
  }
}

void MultiHeadAttention::add_projections(int64_t d_model, Generator& init) {
  q_proj = add_projection("q_proj", d_model, d_model, init);
  k_proj = add_projection("k_proj", d_model, d_model, init);
  v_proj = add_projection("v_proj", d_model, d_model, init);
  out_proj = add_projection("out_proj", d_model, d_model, init);
}

Linear* MultiHeadAttention::add_projection(const std::string& projection_name, int64_t in_features,
                                           int64_t out_features, Generator& init, bool bias) {
  return &register_module(projection_name, std::make_unique<Linear>(in_features, out_features, init, bias));
}

Tensor MultiHeadAttention::add_head_vectors(const std::string& vectors_name, Generator& init) {
  const int64_t d_k = d_model_ / heads_;
  const real bound = static_cast<real>(1.0 / std::sqrt(double(d_k)));        // as Linear(d_k, 1)
  return register_parameter(vectors_name, Tensor::uniform({heads_, d_k}, init, -bound, bound));   // [h, d_k]
}

Tensor MultiHeadAttention::project(const Linear* projection, const Tensor& x) const {
  return split_heads(projection ? projection->forward(x) : x, heads_);      // [B, h, T, d]
}

int64_t MultiHeadAttention::head_width(const Linear* projection) const {
  return (projection ? projection->weight.size(0) : d_model_) / heads_;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
