// gpt/checks/all_checks.cpp — the full list of gradient checks, chapter by chapter, in the order of the course.
// It lives in the last chapter, the one that sees every other chapter's checks.
#include "attention/checks.h"
#include "gpt/checks.h"
#include "kernels/checks.h"
#include "model/checks.h"
#include "nn/checks.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<GradcheckCase> all_gradcheck_cases() {
  std::vector<GradcheckCase> cases;
  const auto add = [&cases](std::vector<GradcheckCase> group) {
    for (GradcheckCase& c : group) cases.push_back(std::move(c));
  };
  for (auto group : {elementwise_checks, matmul_checks, shape_checks, activation_checks, softmax_checks,  // ch. 2
                     layer_norm_checks, dropout_checks, embedding_checks, reduction_checks, cross_entropy_checks,
                     attention_op_checks, pointer_sum_checks,
                     linear_checks, linear_cross_entropy_checks, fused_dropout_checks,                    // kernels
                     scaled_dot_attention_checks, banded_attention_checks, fused_layer_norm_checks}) {
    add(group());
  }
  // The layers and the model are built with weights from one generator, in this order: the same modules every run.
  Generator modules(module_seed);
  add(nn_layer_checks(modules));                                                                          // ch. 3
  add(model_checks(modules));                                                                             // ch. 5
  add(softmax_attention_checks());                                                                        // ch. 4
  add(external_linear_attention_checks());
  add(local_attention_checks());
  add(hard_attention_checks());
  add(reader_attention_checks());
  add(decoder_only_checks());                                                                           // gpt
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
