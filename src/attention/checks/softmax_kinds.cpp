// checks/attention_softmax.cpp — gradient checks for whole attention modules of the softmax kinds:
// scaled_dot, additive, simplified, sagan, and scaled_dot restricted to a window.
//
// A module is differentiated with respect to its inputs *and* every parameter. The inputs handed to the checker
// are {x, memory (cross-attention only), each parameter from named_parameters()}; the module holds the same
// parameter handles, so when the checker nudges a parameter's numbers in place the module's next forward sees
// the change. apply() therefore only reads x and memory from its arguments.
// For self-attention memory *is* x (one tensor, used twice), as in the model, so x's gradient must gather both
// paths: through the queries and through the keys and values.
// Sizes are tiny (d_model 8, 2 heads, B = 2, T ≤ 4): every number costs two forward passes. SAGAN gets d_model
// 16, so that its queries and keys (d_model / 8) have 2 features rather than 1.
#include <memory>

#include "attention/attention.h"
#include "attention/checks.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr int64_t heads = 2;
constexpr int64_t batch = 2;

// Which keys may be seen: key_lengths[b] real tokens, then padding up to key_len.
AttentionMask make_mask(int64_t query_len, int64_t key_len, std::vector<int64_t> key_lengths, bool causal) {
  return make_length_mask(key_lengths, query_len, key_len, causal);
}

// A check of one attention module, built once here and shared by the two lambdas (which keep it alive).
GradcheckCase module_case(std::string op, std::string what, const AttentionConfig& config, AttentionUse use,
                          AttentionMask mask, int64_t d_model = 8) {
  Generator init(20260101);                                                   // fixed: the same weights every run
  std::shared_ptr<Attention> module = make_attention(config, use, d_model, heads, /*dropout=*/0, init);
  module->name = op;
  for (NamedParameter& p : module->named_parameters()) {
    // SAGAN's γ starts at 0, which would make every gradient but γ's exactly 0: open the gate.
    if (p.name == "gamma") p.tensor.data()[0] = real(0.7);
  }
  const bool self = use != AttentionUse::cross;
  const int64_t Tq = mask.query_len, Tk = mask.key_len;
  return {std::move(op), std::move(what),
          [module, self, Tq, Tk, d_model](Generator& gen) {
            module->zero_grad();                                              // a rerun starts from no gradient
            std::vector<Tensor> inputs{Tensor::randn({batch, Tq, d_model}, gen)};    // x [B, Tq, d_model]
            if (!self) inputs.push_back(Tensor::randn({batch, Tk, d_model}, gen));  // memory [B, Tk, d_model]
            for (const NamedParameter& p : module->named_parameters()) inputs.push_back(p.tensor);
            return inputs;
          },
          [module, self, mask](const std::vector<Tensor>& in) {
            ForwardContext ctx;                                               // not training: no dropout
            const Tensor& memory = self ? in[0] : in[1];
            return module->forward(in[0], memory, mask, ctx);                 // [B, Tq, d_model]
          }};
}

}  // namespace

std::vector<GradcheckCase> softmax_attention_checks() {
  std::vector<GradcheckCase> cases;
  for (AttentionKind kind :
       {AttentionKind::scaled_dot, AttentionKind::additive, AttentionKind::simplified, AttentionKind::sagan}) {
    AttentionConfig config;
    config.kind = kind;
    const std::string op = "attention." + name_of(kind);
    const int64_t d_model = kind == AttentionKind::sagan ? 16 : 8;
    cases.push_back(module_case(op, "self, padding (lengths 3, 2)", config, AttentionUse::encoder_self,
                                make_mask(3, 3, {3, 2}, /*causal=*/false), d_model));
    cases.push_back(module_case(op, "causal self, padding", config, AttentionUse::decoder_self,
                                make_mask(3, 3, {3, 2}, /*causal=*/true), d_model));
    cases.push_back(module_case(op, "cross Tq 2, Tk 3, padding", config, AttentionUse::cross,
                                make_mask(2, 3, {3, 2}, /*causal=*/false), d_model));
  }

  AttentionConfig window;
  window.has_window = true;
  window.window_left = 1;
  window.window_right = 1;
  cases.push_back(module_case("attention.window", "scaled_dot, window [1, 1], padding", window,
                              AttentionUse::encoder_self, make_mask(4, 4, {4, 3}, /*causal=*/false)));
  window.window_right = 0;
  cases.push_back(module_case("attention.window", "scaled_dot, window [1, 0], causal", window,
                              AttentionUse::decoder_self, make_mask(4, 4, {4, 3}, /*causal=*/true)));
  explain_op(cases, "attention.scaled_dot",
             "per head: A = softmax(Q Kᵀ / √d_k + mask),  head = A V;  out = concat(heads) W_Oᵀ;  Q = x W_Qᵀ, K = m "
             "W_Kᵀ, V = m W_Vᵀ",
             "∂V = Aᵀ G_h,  ∂A = G_h Vᵀ,  ∂S = A ⊙ (∂A − rowsum(∂A ⊙ A)),  ∂Q = ∂S K / √d_k,  ∂K = ∂Sᵀ Q / √d_k, "
             "then through the Linears");
  explain_op(cases, "attention.additive",
             "per head: e_ij = w_hᵀ tanh(Q_h,i + K_h,j),  A = softmax(e + mask),  head = A V;  out = concat(heads) "
             "W_Oᵀ",
             "∂A as scaled_dot, softmax backward to ∂e;  ∂(Q_i + K_j) = ∂e_ij · w_h ⊙ (1 − tanh²);  ∂Q_i sums over "
             "j, ∂K_j over i;  ∂w_h = Σ_ij ∂e_ij tanh(…)");
  explain_op(cases, "attention.simplified",
             "Q = K = V = the inputs (no projections):  A = softmax(x mᵀ / √d_k + mask),  out = concat(A m per head) "
             "W_Oᵀ",
             "as scaled_dot with W_Q = W_K = W_V = I: the input m collects the gradient of all three uses");
  explain_op(cases, "attention.sagan",
             "one head: Q = x W_Qᵀ, K = m W_Kᵀ (d/8 features), V = m W_Vᵀ;  A = softmax(Q Kᵀ / √(d/8) + mask),  out "
             "= γ · A V   (γ starts at 0)",
             "∂γ = Σ (A V) ⊙ G;  ∂(A V) = γ G, then as scaled_dot with one head of d_k = d/8 and no W_O");
  explain_op(cases, "attention.window",
             "scaled_dot with a band mask: query i sees keys j ∈ [i − left, i + right] (and not padding)",
             "as scaled_dot; keys outside the window get exactly 0 gradient (y = 0 there)");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
