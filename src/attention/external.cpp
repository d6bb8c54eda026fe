// external.cpp — external attention (Guo, Liu, Mu, Hu 2021, "Beyond Self-attention: External Attention using
// Two Linear Layers for Visual Tasks", arXiv:2105.02358; double normalisation §3.2, multi-head form §3.3).
//
//   z    = Q M_kᵀ                       [B, h, T, S]   the score: every token against S learned memory slots
//   ã_is = e^(z_is) / Σ_j e^(z_js)      softmax over the TOKENS (down each slot's column)
//   a_is = ã_is / Σ_s' ã_is'            then each token's row L1-normalised over the slots
//   out  = concat_heads(a M_v) W_Oᵀ     [B, T, d_model]   M_k, M_v [S, d_k] learned; Q = x W_Qᵀ as usual
// The idea. Self-attention compares every token with every other token: O(n²). External attention compares every
// token with S memory slots instead: keys and values that are parameters, a data-set-wide memory of patterns.
// Why normalise twice ("double normalisation", from the same group's Point Cloud Transformer): the map is a plain
// product of features and memories, sensitive to their scale; normalising each slot's column over the tokens, then
// each token's row over the slots, keeps it well scaled. For a sequence model it means that the token softmax is
// the ONLY place where tokens meet: token i's output depends on token j only through the normaliser Σ_j e^(z_js).
// Masks. Padded tokens are hidden from the token softmax (−∞ added to their scores); their own rows become 0. In the
// decoder (mask.causal) token i may not see later tokens, so the token softmax is a PREFIX softmax,
//     ã_is = e^(z_is) / Σ_{j ≤ i, j real} e^(z_js)
// (prefix_softmax, ops/attention_ops.cpp: a running max keeps each ã_is independent of later tokens, bit for bit).
// No window (there is no key axis; factory.cpp refuses one) and no cross-attention (the keys are memories, not the
// encoder's output; make_external_attention below refuses it).
// One memory for all heads (the paper's multi-head variant): each head reads the slots with its slice of Q. The slot
// normalisation divides by Σ_s ã_is + 1e-9 (the authors' code), so a pad's row stays 0; dropout applies to a.
// Parameters: q_proj, out_proj, memory_k.weight and memory_v.weight [S, d_k] (the authors keep M_v transposed).
// Cost: O(n · S · d) time and O(h · n · S) memory — linear in the length n. Worth it when n ≫ S (images, documents)
// and a data-set-wide memory of patterns is what the task needs; for translation it mixes tokens only weakly.
#include <cmath>
#include <string>

#include "attention/multi_head.h"
#include "autograd/ops.h"
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

class ExternalAttention : public MultiHeadAttention {
 public:
  ExternalAttention(const AttentionConfig& c, int64_t d_model, int64_t heads, double dropout, Generator& init)
      : MultiHeadAttention(c, d_model, heads, dropout) {
    memory_gives_keys_ = false;                                              // keys and values: the slots
    const int64_t d_k = d_model / heads, S = c.memory_slots;
    q_proj = add_projection("q_proj", d_model, d_model, init);
    // As nn.Linear(d_k, S) would: ±1/√d_k. And M_v as nn.Linear(S, d_k) would: ±1/√S.
    memory_k = &register_module("memory_k", std::make_unique<Memory>(S, d_k, 1.0 / std::sqrt(double(d_k)), init));
    memory_v = &register_module("memory_v", std::make_unique<Memory>(S, d_k, 1.0 / std::sqrt(double(S)), init));
    out_proj = add_projection("out_proj", d_model, d_model, init);
  }

  // The score of every token against every slot: z = Q M_kᵀ [B, h, T, S].
  Tensor score(const Tensor& Q, const Tensor& /*K: none*/, ForwardContext&) override {
    return matmul(Q, memory_k->weight, false, /*transpose_b=*/true);        // [B, h, T, S] = Q M_kᵀ
  }

  // Softmax over the tokens (padding hidden; in the decoder over the prefix j ≤ i only), then over the slots.
  Tensor attend(const Tensor& Q, const Tensor& K, const Tensor&, const AttentionMask& mask, const Tensor&,
                ForwardContext& ctx) override {
    const int64_t B = Q.size(0), T = Q.size(2);
    if (mask.query_len != mask.key_len) throw Error("external attention " + name + " is self-attention only: Tq ≠ Tk");
    Tensor scores = score(Q, K, ctx);                                        // [B, h, T, S]
    ctx.trace(*this, "scores", scores);                                      // one per (token, slot)
    Tensor per_token;                                                        // [B, h, T, S], ã; log(1 or 0) = 0 or −∞
    if (mask.causal) {
      per_token = prefix_softmax(scores, 2, log(real_keys(mask.key_is_real, {B, 1, T, 1})));  // [B, h, T, S]
    } else {
      Tensor per_slot = transpose(scores, 2, 3);                             // [B, h, S, T]: tokens last
      per_slot = softmax(per_slot, log(real_keys(mask.key_is_real, {B, 1, 1, T})));  // [B, h, S, T], Σ_tokens = 1
      per_token = transpose(per_slot, 2, 3);                                 // [B, h, T, S]
    }
    ctx.trace(*this, "token_softmax", per_token);                            // ã
    Tensor weights = divide_by_sum(per_token, -1, real(1e-9));               // [B, h, T, S], Σ_slots ≈ 1
    ctx.trace(*this, "weights", weights);                                    // a
    if (ctx.recorder) ctx.recorder->record(name, weights);
    return matmul(apply_dropout(weights, dropout_, ctx), memory_v->weight);  // [B, h, T, d_k] = a M_v
  }

  // Incremental decoding (decoder self-attention only): the prefix softmax's running max and sum carried from
  // step to step (state_cache.cpp), then the slot normalisation and a M_v as in attend().
  AttentionCache start_self_cache(int64_t batch, int64_t /*capacity: the state does not grow*/) override {
    return make_running_softmax(batch, heads_, memory_k->weight.size(0));
  }
  Tensor step(const Tensor& x, const std::vector<uint8_t>& x_is_real, AttentionCache& cache) override {
    ForwardContext untraced;
    Tensor z = score(project(q_proj, x), Tensor(), untraced);               // [B, h, 1, S] = q_t M_kᵀ
    Tensor weights = divide_by_sum(running_softmax(cache, z, x_is_real), -1, real(1e-9));   // [B, h, 1, S]
    ++cache.position;
    return output(merge_heads(matmul(weights, memory_v->weight)), untraced);  // [B, 1, d_model]
  }

  Memory* memory_k = nullptr;  // M_k [S, d_k]
  Memory* memory_v = nullptr;  // M_v [S, d_k]
};

}  // namespace

std::unique_ptr<Attention> make_external_attention(const AttentionConfig& c, AttentionUse use, int64_t d_model,
                                                   int64_t heads, double dropout, Generator& init) {
  const std::string where = std::string("model.attention.") + use_name(use);
  if (use == AttentionUse::cross) {
    throw Error(where + ": external attention cannot be cross-attention — its keys and values are learned memories, "
                "not the encoder's output, so the decoder would never see the source sentence. Use it for encoder or "
                "decoder self-attention");
  }
  if (c.memory_slots <= 0) throw Error(where + ".memory_slots must be positive");
  return std::make_unique<ExternalAttention>(c, d_model, heads, dropout, init);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
