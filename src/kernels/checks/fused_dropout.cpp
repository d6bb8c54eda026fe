// checks/fused_dropout.cpp — gradient checks for add_dropout and relu_dropout (kernels/fused_dropout.cpp).
// As for dropout (checks/dropout.cpp), apply() makes a fresh Generator with a fixed seed on every call, so every
// evaluation of the finite difference drops the same numbers.
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "kernels/checks.h"
#include "kernels/kernels.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<GradcheckCase> fused_dropout_checks() {
  std::vector<GradcheckCase> cases;
  for (real p : {real(0.3), real(0)}) {
    const std::string at = p > 0 ? "p = 0.3" : "p = 0";
    cases.push_back({"add_dropout", "x + dropout(s), " + at,
                     [](Generator& gen) {
                       return std::vector<Tensor>{Tensor::randn({3, 5}, gen), Tensor::randn({3, 5}, gen)};
                     },
                     [p](const std::vector<Tensor>& in) {
                       Generator mask_gen(1234);                       // same mask on every call
                       return add_dropout(in[0], in[1], p, mask_gen);
                     }});
    cases.push_back({"relu_dropout", "dropout(relu(h)), " + at,
                     [](Generator& gen) { return std::vector<Tensor>{Tensor::randn({2, 3, 4}, gen)}; },
                     [p](const std::vector<Tensor>& in) {
                       Generator mask_gen(1234);
                       return relu_dropout(in[0], p, mask_gen);
                     }});
  }
  explain_op(cases, "add_dropout", "y = x + s ⊙ m,  m the dropout mask (m_i = 0 with probability p, else 1/(1 − p))",
             "∂x_i += g_i,  ∂s_i += g_i · m_i");
  explain_op(cases, "relu_dropout", "y = max(h, 0) ⊙ m,  m the dropout mask",
             "∂h_i += g_i · m_i · [h_i > 0]");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
