// checks/cross_entropy.cpp — gradient checks for cross_entropy (ops/cross_entropy.cpp).
//
// Logits [2, 3, 7] (batch 2, 3 positions, vocabulary 7) against fixed targets: plain, with label smoothing,
// with padding positions ignored (pad id 0, inside the vocabulary, as in a real batch), and with every position
// ignored (the loss is the constant 0, so the gradient must be exactly 0).
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

GradcheckCase cross_entropy_case(std::string what, TokenIds targets, real label_smoothing, int32_t ignore_id) {
  return {"cross_entropy", std::move(what),
          [](Generator& gen) { return std::vector<Tensor>{Tensor::randn({2, 3, 7}, gen)}; },
          [targets, label_smoothing, ignore_id](const std::vector<Tensor>& in) {
            return cross_entropy(in[0], targets, label_smoothing, ignore_id);
          }};
}

}  // namespace

std::vector<GradcheckCase> cross_entropy_checks() {
  const TokenIds targets{{2, 3}, {3, 0, 6, 1, 1, 5}};
  const TokenIds padded{{2, 3}, {3, 6, 0, 1, 0, 0}};                    // pad id 0 at three positions
  const TokenIds all_padding{{2, 3}, {0, 0, 0, 0, 0, 0}};
  std::vector<GradcheckCase> cases{
      cross_entropy_case("no smoothing", targets, real(0), -1),
      cross_entropy_case("label smoothing 0.1", targets, real(0.1), -1),
      cross_entropy_case("smoothing 0.1, pad id 0 ignored", padded, real(0.1), 0),
      cross_entropy_case("every position ignored", all_padding, real(0.1), 0),
  };
  explain_op(cases, "cross_entropy",
             "per kept position: p = softmax(z), q_c = (1 − ε)[c = t] + ε/V,  H = −Σ_c q_c log p_c;  y = (1/N) Σ H "
             "over the N non-ignored positions",
             "∂z_i[c] += g · (p_i[c] − q_i[c]) / N   (ignored positions get 0)");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
