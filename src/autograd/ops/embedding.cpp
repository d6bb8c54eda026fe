// embedding.cpp — looking up one learned vector per token id (the Transformer's input and output embeddings,
// "Attention Is All You Need" §3.4).
//
// An embedding table is a matrix weight [V, d]: row v is the d-dimensional vector of token v. Looking up a
// batch of ids [B, T] gives [B, T, d]. (It is a matrix product with one-hot rows, onehot(ids) · weight, done
// without building the one-hot matrix.)
//
//   forward                                    backward (g = ∂loss/∂y)
//   y[p, :] = weight[id_p, :]                  ∂weight[id_p, :] += g[p, :]     for every position p
//
// Backward scatter-adds: a row of ∂weight receives one contribution per position that used it, so a token
// seen three times in a batch gets three gradients summed (the "+=" of the chain rule), and a token not seen
// at all gets none. The ids are constants: they receive no gradient.
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

Tensor embedding(const Tensor& weight, const TokenIds& ids) {
  if (weight.rank() != 2) {
    throw Error("embedding: the table must be a matrix [V, d], but weight has shape " + weight.shape().str());
  }
  if (ids.shape.rank() < 1 || ids.shape.rank() > 3) {
    throw Error("embedding: ids must have 1 to 3 axes (the output adds one, and a tensor has at most 4), but "
                "they have shape " + ids.shape.str());
  }
  if (static_cast<int64_t>(ids.values.size()) != ids.shape.numel()) {
    throw Error("embedding: ids of shape " + ids.shape.str() + " should hold " +
                std::to_string(ids.shape.numel()) + " ids, but hold " + std::to_string(ids.values.size()));
  }
  const int64_t V = weight.size(0);
  const int64_t d = weight.size(1);
  const int64_t positions = ids.shape.numel();
  for (int64_t p = 0; p < positions; ++p) {
    const int32_t id = ids.values[static_cast<size_t>(p)];
    if (id < 0 || id >= V) {
      throw Error("embedding: id " + std::to_string(id) + " at position " + ids.shape.index_of(p) +
                  " of the ids " + ids.shape.str() + " is outside the vocabulary [0, " + std::to_string(V) +
                  ") of the table " + weight.shape().str());
    }
  }

  std::vector<int64_t> out_sizes = ids.shape.sizes();
  out_sizes.push_back(d);
  Tensor y = Tensor::zeros(Shape(out_sizes));                           // ids.shape + [d], e.g. [B, T, d]
  MatrixMap rows = y.matrix();                                          // [positions, d]
  ConstMatrixMap table = weight.matrix();                               // [V, d]
  for (int64_t p = 0; p < positions; ++p) rows.row(p) = table.row(ids.values[static_cast<size_t>(p)]);

  record(y, "embedding", {weight}, [weight, ids = ids.values](TensorNode& out) {
    const int64_t d = weight.size(1);
    ConstMatrixMap g(out.grad.data(), static_cast<int64_t>(ids.size()), d);  // [positions, d]
    MatrixMap gw = weight.grad_matrix();                                // [V, d]
    for (size_t p = 0; p < ids.size(); ++p) gw.row(ids[p]) += g.row(static_cast<int64_t>(p));  // scatter-add
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
