// attention/checks/external_linear.cpp — gradient checks for the external and linear attention modules
// (their ops, prefix_softmax and divide, are checked on their own in src/autograd/checks/attention_ops.cpp).
//
// Module level ("attention.external", "attention.linear"): the module is built by make_attention (d_model 8,
// 2 heads, 5 memory slots, no dropout, a fixed seed) inside make_inputs and kept alive by a shared_ptr that
// apply() captures too. The inputs are the token vectors and EVERY parameter handle from named_parameters():
// the checker nudges a parameter's numbers in place, and since the module holds the same handles, apply()
// sees the nudge. So each case checks the backward of the whole module, parameters included.
#include <memory>

#include "attention/attention.h"
#include "attention/checks.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// ---- Module cases ----

// A mask for B sentences whose real lengths are `lengths` (the rest padding), queries of query_len positions.
AttentionMask lengths_mask(const std::vector<int64_t>& lengths, int64_t query_len, int64_t key_len, bool causal) {
  return make_length_mask(lengths, query_len, key_len, causal);
}

// kind external or linear, used as `use`; queries [B, Tq, 8], keys [B, Tk, 8] (the same tensor for self).
GradcheckCase module_case(AttentionKind kind, AttentionUse use, std::string what, int64_t Tq, int64_t Tk,
                          const std::vector<int64_t>& key_lengths) {
  const bool self = use != AttentionUse::cross;
  const int64_t B = static_cast<int64_t>(key_lengths.size());
  const AttentionMask mask = lengths_mask(key_lengths, Tq, Tk, use == AttentionUse::decoder_self);
  auto module = std::make_shared<std::shared_ptr<Attention>>();         // filled by make_inputs
  const std::string op = "attention." + name_of(kind);
  return {op, std::move(what),
          [kind, op, use, self, B, Tq, Tk, module](Generator& gen) {
            AttentionConfig config;
            config.kind = kind;
            config.memory_slots = 5;
            Generator init(7);                                           // fixed seed: the same module every run
            *module = make_attention(config, use, /*d_model=*/8, /*heads=*/2, /*dropout=*/0, init);
            (*module)->name = op;
            std::vector<Tensor> inputs{Tensor::randn({B, Tq, 8}, gen)};  // x [B, Tq, d_model]
            if (!self) inputs.push_back(Tensor::randn({B, Tk, 8}, gen)); // memory [B, Tk, d_model]
            for (const NamedParameter& p : (*module)->named_parameters()) inputs.push_back(p.tensor);
            return inputs;
          },
          [self, mask, module](const std::vector<Tensor>& in) {
            ForwardContext ctx;                                          // inference: no dropout, no recorder
            return (*module)->forward(in[0], self ? in[0] : in[1], mask, ctx);  // [B, Tq, d_model]
          }};
}

}  // namespace

std::vector<GradcheckCase> external_linear_attention_checks() {
  std::vector<GradcheckCase> cases;

  // External attention: self-attention only.
  cases.push_back(module_case(AttentionKind::external, AttentionUse::encoder_self, "encoder, padding (4, 2)", 4, 4, {4, 2}));
  cases.push_back(module_case(AttentionKind::external, AttentionUse::decoder_self, "decoder: causal + padding", 4, 4, {4, 3}));

  // Linear attention: self and cross.
  cases.push_back(module_case(AttentionKind::linear, AttentionUse::encoder_self, "encoder, padding (4, 2)", 4, 4, {4, 2}));
  cases.push_back(module_case(AttentionKind::linear, AttentionUse::decoder_self, "decoder: causal + padding", 4, 4, {4, 3}));
  cases.push_back(module_case(AttentionKind::linear, AttentionUse::cross, "cross Tq 3, Tk 5, padding", 3, 5, {5, 3}));
  explain_op(cases, "attention.external",
             "a = L1-normalise over slots(softmax over tokens(Q M_kᵀ + mask)),  out = (a M_v heads concatenated) "
             "W_Oᵀ;  M_k, M_v [S, d_k] learned",
             "the chain rule through its ops: matmul, (prefix_)softmax over tokens, divide_by_sum over slots, "
             "matmul, Linear; M_k and M_v collect the gradient of every token");
  explain_op(cases, "attention.linear",
             "φ = elu + 1:  out_i = φ(q_i)ᵀ Σ_j φ(k_j) v_jᵀ / (φ(q_i)ᵀ Σ_j φ(k_j) + ε)   per head (causal: Σ over j "
             "≤ i, by cumsum), then W_O",
             "the chain rule through its ops: Linear, elu_plus_one, matmul (or cumsum), divide, Linear");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
