// kernels/checks/fused_linear.cpp — gradient checks for the two kernels of the Linear layer and the output layer:
// linear (kernels/fused_linear.cpp) and linear_cross_entropy (kernels/linear_cross_entropy.cpp).
#include "autograd/gradcheck.h"
#include "kernels/checks.h"
#include "kernels/kernels.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<GradcheckCase> linear_checks() {
  std::vector<GradcheckCase> cases;
  // The Linear layer's own op: y = x · Wᵀ + b, with and without the bias, on 2-D and 3-D x.
  const auto linear_case = [](std::string what, Shape x, int64_t out, bool with_bias) {
    return GradcheckCase{"linear", std::move(what),
                         [x, out, with_bias](Generator& gen) {
                           std::vector<Tensor> in{Tensor::randn(x, gen), Tensor::randn({out, x[-1]}, gen)};
                           if (with_bias) in.push_back(Tensor::randn({out}, gen));
                           return in;
                         },
                         [with_bias](const std::vector<Tensor>& in) {
                           return linear(in[0], in[1], with_bias ? in[2] : Tensor());
                         }};
  };
  cases.push_back(linear_case("x @ W.T + b, x [3, 4]", {3, 4}, 2, true));       // [3, 4] → [3, 2]
  cases.push_back(linear_case("x @ W.T + b, x [2, 3, 4]", {2, 3, 4}, 5, true));  // [2, 3, 4] → [2, 3, 5]
  cases.push_back(linear_case("x @ W.T (no bias)", {2, 3, 4}, 2, false));
  explain_op(cases, "linear", "y = x · Wᵀ + b,  y[i, j] = b[j] + Σ_p x[i, p] · W[j, p]  (nn.Linear; W is [out, in])",
             "with G = ∂L/∂y over every leading position i:  ∂x = G · W,  ∂W = Gᵀ · x,  ∂b[j] = Σ_i G[i, j]");
  return cases;
}

std::vector<GradcheckCase> linear_cross_entropy_checks() {
  std::vector<GradcheckCase> cases;
  const TokenIds padded{{2, 3}, {3, 6, 0, 1, 0, 0}};                    // pad id 0 at three positions
  // The output layer and the loss as one op: h [2, 3, 4], W [7, 4] (the logits h · Wᵀ are never made).
  const auto fused = [](std::string what, TokenIds ids, real smoothing) {
    return GradcheckCase{"linear_cross_entropy", std::move(what),
                         [](Generator& gen) {
                           return std::vector<Tensor>{Tensor::randn({2, 3, 4}, gen), Tensor::randn({7, 4}, gen)};
                         },
                         [ids, smoothing](const std::vector<Tensor>& in) {
                           return linear_cross_entropy(in[0], in[1], ids, smoothing, 0);
                         }};
  };
  cases.push_back(fused("smoothing 0.1, pad id 0 ignored", padded, real(0.1)));
  cases.push_back(fused("no smoothing", padded, real(0)));
  explain_op(cases, "linear_cross_entropy",
             "z = h · Wᵀ (never stored), then cross_entropy(z): y = (1/N) Σ_i H(q_i, softmax(z_i)) over kept positions",
             "∂z = (p − q)/N per chunk of rows, then at once ∂h = g · ∂z · W and ∂W = g · ∂zᵀ · h");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
