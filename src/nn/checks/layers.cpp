// nn/checks/layers.cpp — gradient checks for every layer of chapter 3, differentiated with respect to its
// inputs *and* its parameters (nn/checks.h explains how a module becomes a check).
#include "nn/layers.h"

#include <memory>
#include <string>
#include <vector>

#include "nn/checks.h"
#include "nn/embedding.h"
#include "nn/linear.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<GradcheckCase> nn_layer_checks(Generator& init) {
  std::vector<GradcheckCase> cases;
  ForwardContext eval;  // not training: dropout off (it is 0 anyway)

  // ---- nn layers ----
  cases.push_back(module_case<Linear>("layer.linear", "x [2, 3, 3] → [2, 3, 4], W and b",
                                      std::make_shared<Linear>(3, 4, init), {{2, 3, 3}},
                                      [](Linear& m, const std::vector<Tensor>& in) { return m.forward(in[0]); }));

  // The table is differentiated; the ids are fixed, repeat (scatter-add) and leave row 1 unused (zero gradient).
  const TokenIds ids{{2, 3}, {0, 2, 2, 4, 0, 3}};
  cases.push_back(module_case<Embedding>("layer.embedding", "ids [2, 3], table [5, 3], × √d",
                                         std::make_shared<Embedding>(5, 3, init), {},
                                         [ids](Embedding& m, const std::vector<Tensor>&) { return m.forward(ids); }));

  // 4 positions of a 5-row table: the last row is unused and must get a zero gradient.
  cases.push_back(module_case<PositionalEncoding>(
      "layer.positional_learned", "x [2, 4, 3] + P[0:4], max_len 5",
      std::make_shared<PositionalEncoding>(PositionalKind::learned, 3, 5, init), {{2, 4, 3}},
      [](PositionalEncoding& m, const std::vector<Tensor>& in) { return m.forward(in[0]); }));

  cases.push_back(module_case<LayerNorm>("layer.layer_norm", "x [2, 3, 4], γ and β",
                                         std::make_shared<LayerNorm>(4), {{2, 3, 4}},
                                         [](LayerNorm& m, const std::vector<Tensor>& in) { return m.forward(in[0]); }));

  for (Activation activation : {Activation::relu, Activation::gelu}) {
    cases.push_back(module_case<FeedForward>(
        "layer.feed_forward", name_of(activation) + ", 4 → 6 → 4",
        std::make_shared<FeedForward>(4, 6, activation, 0.0, init), {{2, 3, 4}},
        [eval](FeedForward& m, const std::vector<Tensor>& in) mutable { return m.forward(in[0], eval); }));
  }

  explain_op(cases, "layer.linear", "y = x Wᵀ + b   (W [out, in] as in PyTorch)",
             "∂x = g W,  ∂W = Σ_rows gᵀ x,  ∂b = Σ_rows g");
  explain_op(cases, "layer.embedding", "y = E[ids] · √d_model   (§3.4)",
             "∂E[id_p] += √d_model · g[p]   (scatter-add)");
  explain_op(cases, "layer.positional_learned", "y[b, t] = x[b, t] + P[t]   (a learned table of max_len rows)",
             "∂x = g,  ∂P[t] += Σ_b g[b, t];  rows beyond the sentence get 0");
  explain_op(cases, "layer.layer_norm", "y = γ ⊙ (x − μ) / √(σ² + ε) + β   per row",
             "as the layer_norm op, γ and β included");
  explain_op(cases, "layer.feed_forward",
             "FFN(x) = linear2(act(linear1(x))),  d_model → d_ff → d_model,  act = relu or gelu",
             "chain rule: ∂h = g W_2, ∂pre = ∂h ⊙ act'(pre), ∂x = ∂pre W_1; weight gradients as layer.linear");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
