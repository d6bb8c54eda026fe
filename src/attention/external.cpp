// external.cpp — external attention (Guo, Liu, Mu, Hu 2021, "Beyond Self-attention: External Attention using
// Two Linear Layers for Visual Tasks", arXiv:2105.02358; double normalisation §3.2, multi-head form §3.3).
//
// The idea. Self-attention compares every token with every other token of the same input: O(n²). External
// attention compares every token with S *learned memory slots* instead. The keys and values no longer come
// from the input at all: M_k and M_v are parameters, shared by every sentence of the data set, a memory of
// the patterns worth looking for.
//
//   Q    = x W_Qᵀ, split into h heads                      [B, h, T, d_k]
//   z    = Q M_kᵀ                                          [B, h, T, S]     M_k [S, d_k] learned
//   ã_is = e^(z_is) / Σ_j e^(z_js)                         softmax over the TOKENS (down each slot's column)
//   a_is = ã_is / Σ_s' ã_is'                               then each token's row L1-normalised over the slots
//   out  = concat_heads(a M_v) W_Oᵀ                        [B, T, d_model]  M_v [S, d_k] learned
//
// Why normalise twice ("double normalisation", borrowed from the same group's Point Cloud Transformer):
// the map is a plain product of features and memories, so it is sensitive to the scale of the features;
// normalising each slot's column over the tokens first, then each token's row over the slots, keeps it well
// scaled. Note what it means for a sequence model: the softmax over tokens is the ONLY place where tokens
// meet. Token i's output depends on token j only through the normaliser Σ_j e^(z_js).
//
// Masks. Padded tokens are hidden from the token softmax (−∞ added to their scores), so they change nothing
// for the real ones; their own rows become 0. In the decoder (mask.causal) token i may not see the tokens
// after it, and the token softmax's normaliser sums over all tokens — so there it is a PREFIX softmax:
//     ã_is = e^(z_is) / Σ_{j ≤ i, j real} e^(z_js)
// (prefix_softmax, ops/attention_ops.cpp: a running max keeps each ã_is independent of later tokens, bit for
// bit). The window of the softmax kinds does not apply (there is no key axis), nor does cross-attention: the
// keys are memories, not the encoder's output (factory.cpp refuses both).
//
// One memory for all heads, as the paper's multi-head variant: M_k and M_v are [S, d_k] and every head reads
// the same slots with its own slice of Q. Per-head memories ([h, S, d_k]) would multiply those parameters by
// h; the paper shares them, and sharing lets the heads specialise through W_Q and W_O alone.
// The slot normalisation divides by (Σ_s ã_is + 1e-9), as the authors' code does, so a padded token's all-zero
// row stays 0 rather than becoming 0/0. Dropout (attention dropout) applies to a, as in the authors' code.
//
// Parameters (PyTorch names): q_proj, out_proj (Linear d_model → d_model), memory_k.weight [S, d_k],
// memory_v.weight [S, d_k]. Both memories are stored as the paper writes them, [S, d_k]; the authors' code
// keeps M_v inside an nn.Linear(S, d_k), whose weight is the transpose, [d_k, S].
//
// Cost: O(n · S · d) time and O(h · n · S) memory for the map — linear in the sentence length n, where
// scaled_dot is quadratic. Worth it when n ≫ S (long inputs: images, documents) and a data-set-wide memory of
// patterns is what the task needs; for translation it mixes information between tokens only weakly.
#include <cmath>
#include <limits>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "nn/layers.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A learned memory: S slots of d_k numbers, stored as one parameter named "weight" so that the state dict
// reads "….self_attn.memory_k.weight". Initialised like PyTorch's nn.Linear: uniform in ±bound.
class Memory : public Module {
 public:
  Memory(int64_t slots, int64_t d_k, double bound, Generator& init)
      : weight(register_parameter("weight", Tensor::uniform({slots, d_k}, init, static_cast<real>(-bound),
                                                             static_cast<real>(bound)))) {}
  Tensor weight;  // [S, d_k]
};

// 0 for a real token, −∞ for padding, shaped to broadcast along the token axis of the scores.
Tensor token_padding_mask(const AttentionMask& mask, const Shape& shape) {
  const real minus_infinity = -std::numeric_limits<real>::infinity();
  Tensor additive = Tensor::zeros(shape);                                   // B · T numbers, in `shape`
  for (size_t t = 0; t < mask.key_is_real.size(); ++t) {
    if (!mask.key_is_real[t]) additive.data()[t] = minus_infinity;
  }
  return additive;
}

class ExternalAttention : public Attention {
 public:
  ExternalAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, double dropout, Generator& init)
      : q_proj(register_module("q_proj", std::make_unique<Linear>(d_model, d_model, init))),
        // As nn.Linear(d_k, S) would: ±1/√d_k. And M_v as nn.Linear(S, d_k) would: ±1/√S.
        memory_k(register_module("memory_k", std::make_unique<Memory>(c.memory_slots, d_model / heads,
                                                                      1.0 / std::sqrt(double(d_model / heads)),
                                                                      init))),
        memory_v(register_module("memory_v", std::make_unique<Memory>(c.memory_slots, d_model / heads,
                                                                      1.0 / std::sqrt(double(c.memory_slots)),
                                                                      init))),
        out_proj(register_module("out_proj", std::make_unique<Linear>(d_model, d_model, init))),
        heads_(heads),
        dropout_(dropout) {}

  Tensor forward(const Tensor& x, const Tensor& memory, const AttentionMask& mask, ForwardContext& ctx) override {
    const int64_t B = x.size(0), T = x.size(1);
    if (memory.size(1) != T || mask.batch != B || mask.query_len != T || mask.key_len != T) {
      throw Error("external attention (" + name + "): it is self-attention only, so the queries, the keys and "
                  "the mask must cover the same " + std::to_string(T) + " tokens; got memory " +
                  memory.shape().str() + " and a mask for " + std::to_string(mask.query_len) + " queries × " +
                  std::to_string(mask.key_len) + " keys");
    }
    Tensor Q = split_heads(q_proj.forward(x), heads_);                       // [B, h, T, d_k]
    ctx.trace(*this, "q", Q);
    Tensor scores = matmul(Q, memory_k.weight, false, /*transpose_b=*/true); // [B, h, T, S] = Q M_kᵀ
    ctx.trace(*this, "scores", scores);                                      // one per (token, slot)

    // Softmax over the tokens (axis 2), padding hidden; in the decoder over the prefix j ≤ i only.
    Tensor per_token;                                                        // [B, h, T, S], ã
    if (mask.causal) {
      per_token = prefix_softmax(scores, 2, token_padding_mask(mask, {B, 1, T, 1}));  // [B, h, T, S]
    } else {
      Tensor per_slot = transpose(scores, 2, 3);                             // [B, h, S, T]: tokens last
      per_slot = softmax(per_slot, token_padding_mask(mask, {B, 1, 1, T}));  // [B, h, S, T], Σ_tokens = 1
      per_token = transpose(per_slot, 2, 3);                                 // [B, h, T, S]
    }
    ctx.trace(*this, "token_softmax", per_token);                            // ã
    Tensor weights = divide_by_sum(per_token, -1, real(1e-9));               // [B, h, T, S], Σ_slots ≈ 1
    ctx.trace(*this, "weights", weights);                                    // a
    if (ctx.recorder) ctx.recorder->record(name, weights);
    weights = apply_dropout(weights, dropout_, ctx);                         // [B, h, T, S]
    Tensor context = matmul(weights, memory_v.weight);                       // [B, h, T, d_k] = a M_v
    ctx.trace(*this, "context", context);
    Tensor out = out_proj.forward(merge_heads(context));                     // [B, T, d_model]
    ctx.trace(out_proj, out);
    return out;
  }

  // Incremental decoding (decoder self-attention only). prefix_softmax walks down each slot's column with a
  // running max M and running sum l; the cache simply keeps (M, l) between steps, so step t gives exactly what
  // the prefix softmax gives at position t:
  //   z_s = q_t · M_k[s];   if z_s > M_s: l_s ← l_s · e^(M_s − z_s), M_s ← z_s;   l_s ← l_s + e^(z_s − M_s)
  //   ã_s = e^(z_s − M_s) / l_s,   a_s = ã_s / (Σ_s' ã_s' + 1e-9),   out = concat_heads(a M_v) W_Oᵀ
  // A pad token changes neither M nor l and gets ã = 0.
  AttentionCache start_self_cache(int64_t batch, int64_t /*capacity: the state does not grow*/) override {
    const int64_t slots = memory_k.weight.size(0);
    AttentionCache cache;
    cache.self = true;
    cache.batch = batch;
    cache.running_max = Tensor::full({batch, heads_, slots}, -std::numeric_limits<real>::infinity());  // [B, h, S]
    cache.running_sum = Tensor::zeros({batch, heads_, slots});                                         // [B, h, S]
    return cache;
  }
  Tensor step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) override {
    const int64_t B = x.size(0), h = heads_, slots = memory_k.weight.size(0);
    Tensor Q = split_heads(q_proj.forward(x), h);                            // [B, h, 1, d_k]
    const int64_t d_k = Q.size(3);
    Tensor weights = Tensor::zeros({B, h, 1, slots});                        // [B, h, 1, S], a
    for (int64_t row = 0; row < B * h; ++row) {
      const bool real_token = x_is_real[static_cast<size_t>(row / h)] != 0;
      real* M = cache.running_max.data() + row * slots;                      // [S]
      real* l = cache.running_sum.data() + row * slots;                      // [S]
      real* a = weights.data() + row * slots;                                // [S]
      real total = 0;                                                        // Σ_s ã_s
      for (int64_t s = 0; s < slots; ++s) {
        if (!real_token) continue;                                           // hidden: ã = 0, state unchanged
        const real z = dot_product(Q.data() + row * d_k, memory_k.weight.data() + s * d_k, d_k);  // q_t · M_k[s]
        if (z > M[s]) {                                                      // a new max: rescale the old sum
          l[s] *= std::exp(M[s] - z);
          M[s] = z;
        }
        const real term = std::exp(z - M[s]);                                // e^(z − M), in [0, 1]
        l[s] += term;
        a[s] = term / l[s];                                                  // ã_s
        total += a[s];
      }
      for (int64_t s = 0; s < slots; ++s) a[s] /= total + real(1e-9);        // a_s = ã_s / (Σ ã + 1e-9)
    }
    Tensor context = matmul(weights, memory_v.weight);                       // [B, h, 1, d_k] = a M_v
    ++cache.position;
    return out_proj.forward(merge_heads(context));                           // [B, 1, d_model]
  }

  Linear& q_proj;
  Memory& memory_k;   // M_k [S, d_k]
  Memory& memory_v;   // M_v [S, d_k]
  Linear& out_proj;

 private:
  int64_t heads_;
  double dropout_;
};

}  // namespace

std::unique_ptr<Attention> make_external_attention(const AttentionConfig& c, AttentionUse, int64_t d_model,
                                                   int64_t heads, double dropout, Generator& init) {
  return std::make_unique<ExternalAttention>(c, d_model, heads, dropout, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
