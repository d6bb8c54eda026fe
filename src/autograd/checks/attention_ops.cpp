// checks/attention_ops.cpp — gradient checks for the ops of the attention family (ops/attention_ops.cpp):
// prefix_softmax along the last, a middle and the first axis; with padding hidden at the end of a column (the
// decoder's case), at its start (a prefix with nothing visible yet must give 0, not NaN) and with scores near
// 1000 (the running max must keep e^(…) finite). divide with and without broadcasting.
#include <limits>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr real hidden = -std::numeric_limits<real>::infinity();       // a mask entry that hides a position

GradcheckCase prefix(std::string what, Shape scores, int axis, Tensor mask, real offset = 0) {
  return {"prefix_softmax", std::move(what),
          [scores, offset](Generator& gen) {
            return std::vector<Tensor>{add_scalar(Tensor::randn(scores, gen, 2), offset)};
          },
          [axis, mask](const std::vector<Tensor>& in) { return prefix_softmax(in[0], axis, mask); }};
}

// Token padding for scores [B=2, h, T=4, S] along axis 2: sentence 0 has 4 real tokens, sentence 1 only 2.
Tensor token_padding_mask() {
  return Tensor::from_values({2, 1, 4, 1}, {0, 0, 0, 0,
                                            0, 0, hidden, hidden});
}

// [2, 5, 1] along axis 1: column 0 starts with two hidden positions, column 1 ends with two.
Tensor hidden_start_and_end_mask() {
  return Tensor::from_values({2, 5, 1}, {hidden, hidden, 0, 0, 0,
                                         0, 0, 0, hidden, hidden});
}

}  // namespace

std::vector<GradcheckCase> attention_op_checks() {
  std::vector<GradcheckCase> cases;

  // prefix_softmax
  cases.push_back(prefix("last axis, no mask", {2, 3, 5}, -1, Tensor()));
  cases.push_back(prefix("token axis of [B,h,T,S]", {2, 2, 4, 3}, 2, Tensor()));
  cases.push_back(prefix("token axis, padding [B,1,T,1]", {2, 2, 4, 3}, 2, token_padding_mask()));
  cases.push_back(prefix("first axis", {6, 2}, 0, Tensor()));
  cases.push_back(prefix("hidden start (empty prefix), end", {2, 5, 3}, 1, hidden_start_and_end_mask()));
  cases.push_back(prefix("scores near 1000", {3, 6}, -1, Tensor(), 1000));

  // divide
  cases.push_back({"divide", "same shape",
                   [](Generator& gen) {
                     return std::vector<Tensor>{Tensor::randn({2, 3, 4}, gen), Tensor::uniform({2, 3, 4}, gen, 0.5, 2)};
                   },
                   [](const std::vector<Tensor>& in) { return divide(in[0], in[1]); }});
  cases.push_back({"divide", "by a column [2,3,1]",
                   [](Generator& gen) {
                     return std::vector<Tensor>{Tensor::randn({2, 3, 4}, gen), Tensor::uniform({2, 3, 1}, gen, 0.5, 2)};
                   },
                   [](const std::vector<Tensor>& in) { return divide(in[0], in[1]); }});

  explain_op(cases, "prefix_softmax",
             "z = x + m,  y_i = e^(z_i) / Σ_{j ≤ i} e^(z_j)   along an axis: position i sees only j ≤ i",
             "∂x_j += y_j · (g_j − D_j),  D_j = Σ_{i ≥ j} g_i y_i e^(lse_j − lse_i),  lse_i = log Σ_{j ≤ i} e^(z_j)");
  explain_op(cases, "divide", "y = a / b   (elementwise, broadcasting as add)",
             "∂a += g / b,  ∂b += −g · a / b² (= −g · y / b)");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
