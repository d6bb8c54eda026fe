// checks/embedding.cpp — gradient checks for embedding (ops/embedding.cpp).
//
// The table is differentiated; the ids are fixed and repeat, so the scatter-add of backward must sum several
// positions into one row (and leave unused rows at zero).
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

GradcheckCase embedding_case(std::string what, Shape table, TokenIds ids) {
  return {"embedding", std::move(what),
          [table](Generator& gen) { return std::vector<Tensor>{Tensor::randn(table, gen)}; },
          [ids](const std::vector<Tensor>& in) { return embedding(in[0], ids); }};
}

}  // namespace

std::vector<GradcheckCase> embedding_checks() {
  std::vector<GradcheckCase> cases{
      embedding_case("ids [2, 3], repeated ids", {5, 3}, TokenIds{{2, 3}, {0, 2, 2, 4, 0, 2}}),
      embedding_case("ids [4], row 1 unused", {4, 2}, TokenIds{{4}, {3, 0, 3, 2}}),
      embedding_case("ids [2, 2, 2], rank-4 output", {3, 2}, TokenIds{{2, 2, 2}, {1, 1, 0, 2, 2, 1, 0, 0}}),
  };
  explain_op(cases, "embedding",
             "y[p, :] = weight[id_p, :]   (a row lookup per position p)",
             "∂weight[id_p, :] += g[p, :] for every position p   (scatter-add: a repeated id sums, an unused row "
             "gets 0)");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
