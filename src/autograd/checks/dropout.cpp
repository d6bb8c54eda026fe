// checks/dropout.cpp — gradient checks for dropout (ops/dropout.cpp).
//
// Dropout draws a random mask, and a finite difference compares f(x + h) with f(x - h): both must use the same
// mask, or the difference measures the change of mask instead of the change of x. So apply() makes a fresh
// Generator with a fixed seed on every call, and every evaluation drops the same numbers.
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

GradcheckCase dropout_case(std::string what, Shape shape, real p) {
  return {"dropout", std::move(what),
          [shape](Generator& gen) { return std::vector<Tensor>{Tensor::randn(shape, gen)}; },
          [p](const std::vector<Tensor>& in) {
            Generator mask_gen(1234);                                   // same mask on every call
            return dropout(in[0], p, mask_gen);
          }};
}

}  // namespace

std::vector<GradcheckCase> dropout_checks() {
  std::vector<GradcheckCase> cases{dropout_case("p = 0.3", {4, 5}, real(0.3)),
                                   dropout_case("p = 0.5, rank 3", {2, 3, 4}, real(0.5)),
                                   dropout_case("p = 0 (identity)", {3, 4}, real(0))};
  explain_op(cases, "dropout",
             "y = x ⊙ m,  m_i = 0 with probability p, else 1/(1 − p)   (inverted dropout: E[y] = x)",
             "∂x_i += g_i · m_i   (the same mask as forward)");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
