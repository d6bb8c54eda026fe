// answer.cpp — the project's answer to the embedding_backward exercise. Try exercise.cpp first: the check tells you
// where you are wrong, and finding the "+=" yourself is the point.
//
//   ∂W[v, :] = √d_model · Σ_{p : ids[p] = v} g[p, :]          a scatter-add: each row of g goes where its id says
// The library does it in two steps: scale()'s backward multiplies g by √d_model (src/autograd/ops/elementwise.cpp),
// then embedding()'s backward scatter-adds the rows (gw.row(ids[p]) += g.row(p), src/autograd/ops/embedding.cpp).
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

Tensor embedding_backward(const TokenIds& ids, const Tensor& g, int64_t vocab_size) {
  const int64_t d_model = g.shape().cols();
  const int64_t positions = ids.shape.numel();
  const real s = std::sqrt(static_cast<real>(d_model));                     // the forward's √d_model
  Tensor dW = Tensor::zeros({vocab_size, d_model});                          // [V, d_model], ∂loss/∂W
  for (int64_t p = 0; p < positions; ++p) {
    const int64_t id = ids.values[static_cast<size_t>(p)];                   // the row position p looked up
    const real* gp = g.data() + p * d_model;                                 // ∂loss/∂y[p, :], [d_model]
    real* dWv = dW.data() + id * d_model;                                    // ∂loss/∂W[id, :], [d_model]
    for (int64_t j = 0; j < d_model; ++j) dWv[j] += s * gp[j];               // += : a repeated id adds up
  }
  return dW;
}

}  // namespace attnlab::exercises
