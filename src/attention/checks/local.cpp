// attention/checks/local.cpp — gradient checks for local attention, local_m and local_p (local.cpp), whole
// modules with every parameter, as checks/softmax_kinds.cpp does for the softmax kinds.
//
// The window's bounds have no gradient: a key sits inside [p_i − D, p_i + D] or not, and the output jumps when
// one crosses. A finite difference taken across such a jump would measure the jump, not a derivative. So the
// inputs are drawn again (up to 50 times) until every centre p_i is at least 0.01 away from a place where a key
// would cross a bound — with D a whole number, that is p_i at least 0.01 from every whole number. The checker's
// steps (1e-6) move p_i by far less. local_m's centres are whole numbers but constants: they never move.
// The centres are read back through the tracer (the "p_head…" stages `attnlab trace` prints).
// D = 1 (σ = 0.5) on sequences of up to 5 positions, so the window really cuts and the Gaussian really bends.
#include <cmath>
#include <memory>

#include "attention/attention.h"
#include "attention/checks.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// How far the nearest centre a forward pass traces (the stages "p_head0", "p_head1", …) is from a whole number,
// that is from a window bound: 0.5 at best, 0 on a bound.
class CentreTracer : public Tracer {
 public:
  void trace(const std::string& name, const Tensor& value) override {
    if (name.find(".p_head") == std::string::npos) return;
    for (int64_t n = 0; n < value.numel(); ++n) {
      const double p = value.data()[n];
      distance_to_bounds = std::min(distance_to_bounds, std::abs(p - std::round(p)));
    }
  }
  double distance_to_bounds = 0.5;
};

GradcheckCase local_case(AttentionKind kind, AttentionUse use, std::string what, int64_t Tq, int64_t Tk,
                         const std::vector<int64_t>& key_lengths) {
  const bool self = use != AttentionUse::cross;
  const int64_t B = static_cast<int64_t>(key_lengths.size());
  const AttentionMask mask = make_length_mask(key_lengths, Tq, Tk, use == AttentionUse::decoder_self);
  AttentionConfig config;
  config.kind = kind;
  config.local_width = 1;
  const std::string op = "attention." + name_of(kind);
  Generator init(11);                                                   // fixed seed: the same module every run
  std::shared_ptr<Attention> module = make_attention(config, use, /*d_model=*/8, /*heads=*/2, /*dropout=*/0, init);
  module->name = op;
  return {op, std::move(what),
          [module, self, mask, B, Tq, Tk, kind, op](Generator& gen) {
            module->zero_grad();
            for (int attempt = 0; attempt < 50; ++attempt) {
              std::vector<Tensor> inputs{Tensor::randn({B, Tq, 8}, gen)};       // x [B, Tq, d_model]
              if (!self) inputs.push_back(Tensor::randn({B, Tk, 8}, gen));      // memory [B, Tk, d_model]
              CentreTracer tracer;
              ForwardContext ctx;
              ctx.tracer = &tracer;
              {
                NoGradGuard no_graph;
                module->forward(inputs[0], self ? inputs[0] : inputs[1], mask, ctx);
              }
              if (kind == AttentionKind::local_m || tracer.distance_to_bounds >= 0.01) {
                for (const NamedParameter& p : module->named_parameters()) inputs.push_back(p.tensor);
                return inputs;
              }
            }
            throw Error("gradcheck " + op + ": no input in 50 draws keeps every centre off a bound");
          },
          [module, self, mask](const std::vector<Tensor>& in) {
            ForwardContext ctx;                                                 // inference: no dropout
            return module->forward(in[0], self ? in[0] : in[1], mask, ctx);     // [B, Tq, d_model]
          }};
}

}  // namespace

std::vector<GradcheckCase> local_attention_checks() {
  std::vector<GradcheckCase> cases;
  for (AttentionKind kind : {AttentionKind::local_m, AttentionKind::local_p}) {
    cases.push_back(local_case(kind, AttentionUse::encoder_self, "encoder, D 1, padding (5, 3)", 5, 5, {5, 3}));
    cases.push_back(local_case(kind, AttentionUse::decoder_self, "decoder: causal, D 1, padding (5, 4)", 5, 5, {5, 4}));
    cases.push_back(local_case(kind, AttentionUse::cross, "cross Tq 5, Tk 3, D 1, padding (3, 2)", 5, 3, {3, 2}));
  }
  explain_op(cases, "attention.local_m",
             "per head: p_i = min(i, S_i);  A = softmax(Q Kᵀ / √d_k + mask + window), window: −∞ where |j − p_i| > D; "
             "head = A V;  out = concat(heads) W_Oᵀ",
             "as scaled_dot with the window as part of the mask: keys outside it get exactly 0 gradient");
  explain_op(cases, "attention.local_p",
             "per head: p_i = S_i σ(v_pᵀ tanh(W_p x_i));  A = softmax(Q Kᵀ / √d_k + mask + window(p)) ⊙ G,  G_ij = "
             "exp(−(j − p_i)² / 2σ²), σ = D/2;  head = A V;  out = concat(heads) W_Oᵀ",
             "∂softmax = ∂A ⊙ G, then as scaled_dot;  ∂p_i = Σ_j ∂A_ij · softmax_ij G_ij (j − p_i) / σ²;  ∂z = ∂p_i S_i "
             "σ(1 − σ);  ∂v_p = Σ ∂z tanh(W_p x);  ∂(W_p x) = ∂z v_p (1 − tanh²).  The window's bounds: no gradient");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
