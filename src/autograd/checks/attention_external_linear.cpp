// checks/attention_external_linear.cpp — gradient checks for the ops of the attention family
// (ops/attention_ops.cpp: prefix_softmax, divide) and for the external and linear attention modules.
//
// Op level: prefix_softmax along the last, a middle and the first axis; with padding hidden at the end of a
// column (the decoder's case), at its start (a prefix with nothing visible yet must give 0, not NaN) and with
// scores near 1000 (the running max must keep e^(…) finite). divide with and without broadcasting.
//
// Module level ("attention.external", "attention.linear"): the module is built by make_attention (d_model 8,
// 2 heads, 5 memory slots, no dropout, a fixed seed) inside make_inputs and kept alive by a shared_ptr that
// apply() captures too. The inputs are the token vectors and EVERY parameter handle from named_parameters():
// the checker nudges a parameter's numbers in place, and since the module holds the same handles, apply()
// sees the nudge. So each case checks the backward of the whole module, parameters included.
#include <limits>
#include <memory>

#include "attention/attention.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

constexpr real hidden = -std::numeric_limits<real>::infinity();       // a mask entry that hides a position

GradcheckCase prefix(std::string what, Shape scores, int axis, Tensor mask, real offset = 0) {
  return {"prefix_softmax", std::move(what),
          [scores, offset](Generator& gen) {
            return std::vector<Tensor>{add_scalar(Tensor::randn(scores, gen, 2), offset)};
          },
          [axis, mask](const std::vector<Tensor>& in) { return prefix_softmax(in[0], axis, mask); }};
}

// Token padding for scores [B=2, h, T=4, S] along axis 2: sentence 0 has 4 real tokens, sentence 1 only 2.
Tensor token_padding_mask() {
  return Tensor::from_values({2, 1, 4, 1}, {0, 0, 0, 0,
                                            0, 0, hidden, hidden});
}

// [2, 5, 1] along axis 1: column 0 starts with two hidden positions, column 1 ends with two.
Tensor hidden_start_and_end_mask() {
  return Tensor::from_values({2, 5, 1}, {hidden, hidden, 0, 0, 0,
                                         0, 0, 0, hidden, hidden});
}

// ---- Module cases ----

// A mask for B sentences whose real lengths are `lengths` (the rest padding), queries of query_len positions.
AttentionMask lengths_mask(const std::vector<int64_t>& lengths, int64_t query_len, int64_t key_len, bool causal) {
  return make_length_mask(lengths, query_len, key_len, causal);
}

// kind "external" or "linear", used as `use`; queries [B, Tq, 8], keys [B, Tk, 8] (the same tensor for self).
GradcheckCase module_case(const std::string& kind, AttentionUse use, std::string what, int64_t Tq, int64_t Tk,
                          const std::vector<int64_t>& key_lengths) {
  const bool self = use != AttentionUse::cross;
  const int64_t B = static_cast<int64_t>(key_lengths.size());
  const AttentionMask mask = lengths_mask(key_lengths, Tq, Tk, use == AttentionUse::decoder_self);
  auto module = std::make_shared<std::shared_ptr<Attention>>();         // filled by make_inputs
  return {"attention." + kind, std::move(what),
          [kind, use, self, B, Tq, Tk, module](Generator& gen) {
            AttentionConfig config;
            config.kind = kind;
            config.memory_slots = 5;
            Generator init(7);                                           // fixed seed: the same module every run
            *module = make_attention(config, use, /*d_model=*/8, /*heads=*/2, /*dropout=*/0, init);
            (*module)->name = "attention." + kind;
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

  // prefix_softmax
  cases.push_back(prefix("last axis, no mask", {2, 3, 5}, -1, Tensor()));
  cases.push_back(prefix("token axis of [B,h,T,S]", {2, 2, 4, 3}, 2, Tensor()));
  cases.push_back(prefix("token axis, padding [B,1,T,1]", {2, 2, 4, 3}, 2, token_padding_mask()));
  cases.push_back(prefix("first axis", {6, 2}, 0, Tensor()));
  cases.push_back(prefix("hidden start (empty prefix), end", {2, 5, 3}, 1, hidden_start_and_end_mask()));
  cases.push_back(prefix("scores near 1000", {3, 6}, -1, Tensor(), 1000));

  // divide
  cases.push_back({"divide", "same shape",
                   [](Generator& gen) {
                     return std::vector<Tensor>{Tensor::randn({2, 3, 4}, gen), Tensor::uniform({2, 3, 4}, gen, 0.5, 2)};
                   },
                   [](const std::vector<Tensor>& in) { return divide(in[0], in[1]); }});
  cases.push_back({"divide", "by a column [2,3,1]",
                   [](Generator& gen) {
                     return std::vector<Tensor>{Tensor::randn({2, 3, 4}, gen), Tensor::uniform({2, 3, 1}, gen, 0.5, 2)};
                   },
                   [](const std::vector<Tensor>& in) { return divide(in[0], in[1]); }});

  // External attention: self-attention only.
  cases.push_back(module_case("external", AttentionUse::encoder_self, "encoder, padding (4, 2)", 4, 4, {4, 2}));
  cases.push_back(module_case("external", AttentionUse::decoder_self, "decoder: causal + padding", 4, 4, {4, 3}));

  // Linear attention: self and cross.
  cases.push_back(module_case("linear", AttentionUse::encoder_self, "encoder, padding (4, 2)", 4, 4, {4, 2}));
  cases.push_back(module_case("linear", AttentionUse::decoder_self, "decoder: causal + padding", 4, 4, {4, 3}));
  cases.push_back(module_case("linear", AttentionUse::cross, "cross Tq 3, Tk 5, padding", 3, 5, {5, 3}));
  explain_op(cases, "prefix_softmax",
             "z = x + m,  y_i = e^(z_i) / Σ_{j ≤ i} e^(z_j)   along an axis: position i sees only j ≤ i",
             "∂x_j += y_j · (g_j − D_j),  D_j = Σ_{i ≥ j} g_i y_i e^(lse_j − lse_i),  lse_i = log Σ_{j ≤ i} e^(z_j)");
  explain_op(cases, "divide", "y = a / b   (elementwise, broadcasting as add)",
             "∂a += g / b,  ∂b += −g · a / b² (= −g · y / b)");
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

}  // namespace attnlab::inline ATTNLAB_PRECISION
