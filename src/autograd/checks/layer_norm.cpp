// checks/layer_norm.cpp — gradient checks for layer_norm (ops/layer_norm.cpp): x, gamma and beta all
// differentiated, so the three parts of the backward (∂x, ∂γ, ∂β) are each checked.
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// x of the given shape (mean `offset`, standard deviation `spread`), with random gamma and beta of size d.
GradcheckCase normalize_case(const std::string& op, LayerNormFunction normalize, std::string what, Shape shape,
                             real offset, real spread) {
  return {op, std::move(what),
          [shape, offset, spread](Generator& gen) {
            const int64_t d = shape[-1];
            Tensor x = add_scalar(Tensor::randn(shape, gen, spread), offset);  // [..., d]
            Tensor gamma = add_scalar(Tensor::randn({d}, gen, 0.5), 1);      // [d], around 1
            Tensor beta = Tensor::randn({d}, gen, 0.5);                       // [d], around 0
            return std::vector<Tensor>{x, gamma, beta};
          },
          [normalize](const std::vector<Tensor>& in) { return normalize(in[0], in[1], in[2], real(1e-5)); }};
}

}  // namespace

std::vector<GradcheckCase> layer_norm_checks_for(const std::string& op, LayerNormFunction normalize) {
  std::vector<GradcheckCase> cases;
  cases.push_back(normalize_case(op, normalize, "[B, T, d], random gamma/beta", {2, 3, 8}, 0, 1));
  cases.push_back(normalize_case(op, normalize, "rows with mean 5, std 3", {4, 6}, 5, 3));
  cases.push_back(normalize_case(op, normalize, "[80, 5]: more rows than one chunk of 32", {80, 5}, 0, 1));
  cases.push_back({op, "small rows (std 0.01): eps matters",
                   [](Generator& gen) {
                     return std::vector<Tensor>{Tensor::randn({3, 5}, gen, 0.01), Tensor::randn({5}, gen),
                                                Tensor::randn({5}, gen)};
                   },
                   [normalize](const std::vector<Tensor>& in) {
                     return normalize(in[0], in[1], in[2], real(1e-5));
                   }});
  explain_op(cases, op,
             "per row of d numbers: μ = mean(x), σ² = mean((x − μ)²), rstd = 1/√(σ² + ε), x̂ = (x − μ) · rstd, y = γ "
             "⊙ x̂ + β",
             "ĝ = g ⊙ γ:  ∂x = rstd · (ĝ − mean(ĝ) − x̂ · mean(ĝ ⊙ x̂)),  ∂γ = Σ_rows g ⊙ x̂,  ∂β = Σ_rows g");
  return cases;
}

std::vector<GradcheckCase> layer_norm_checks() { return layer_norm_checks_for("layer_norm", layer_norm); }

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
