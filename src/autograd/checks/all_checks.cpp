// all_checks.cpp — the full list of gradient checks, one group per op file, in the order of ops.h.
#include "autograd/gradcheck.h"

namespace attnlab::inline ATTNLAB_PRECISION {

std::vector<GradcheckCase> all_gradcheck_cases() {
  std::vector<GradcheckCase> cases;
  for (auto group : {elementwise_checks, matmul_checks, shape_checks, activation_checks, softmax_checks,
                     layer_norm_checks, dropout_checks, fused_dropout_checks, embedding_checks, reduction_checks,
                     cross_entropy_checks, layer_checks, softmax_attention_checks,
                     external_linear_attention_checks, scaled_dot_attention_checks, banded_attention_checks}) {
    for (GradcheckCase& c : group()) cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
