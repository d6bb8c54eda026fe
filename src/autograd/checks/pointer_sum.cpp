// checks/pointer_sum.cpp — gradient checks for pointer_sum (ops/pointer_sum.cpp): a word at several positions
// (its attentions add up), and a padded document (pad id 0 at the end, as a batch has it).
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

GradcheckCase pointer_sum_case(std::string what, TokenIds document, int64_t vocab) {
  const Shape shape{document.shape[0], document.shape[1]};
  return {"pointer_sum", std::move(what),
          [shape](Generator& gen) { return std::vector<Tensor>{Tensor::uniform(shape, gen, 0, 1)}; },
          [document, vocab](const std::vector<Tensor>& in) { return pointer_sum(in[0], document, vocab); }};
}

}  // namespace

std::vector<GradcheckCase> pointer_sum_checks() {
  std::vector<GradcheckCase> cases{
      pointer_sum_case("words repeated in the document", TokenIds{{2, 5}, {4, 5, 4, 6, 4, 7, 7, 5, 8, 5}}, 9),
      pointer_sum_case("padded document (pad id 0)", TokenIds{{2, 4}, {5, 6, 5, 0, 4, 0, 0, 0}}, 7),
  };
  explain_op(cases, "pointer_sum", "P[b, w] = Σ_{i : D[b, i] = w} s[b, i]   (the attention on every position of w)",
             "∂s[b, i] += g[b, D[b, i]]   (each position gathers the gradient of its word)");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
