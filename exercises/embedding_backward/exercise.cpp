// Exercise embedding_backward (chapter autograd): the backward pass of the Transformer's token embedding.
//
// An embedding table W [V, d_model] holds one learned vector per token: row v is token v's. The Transformer
// looks a batch of ids up and multiplies by √d_model ("Attention Is All You Need" §3.4; Embedding::forward in
// src/nn/embedding.cpp is the op embedding() of src/autograd/ops/embedding.cpp, then scale()). Here you write
// how the gradient gets back to the table.
//
//   forward     y[p, :] = √d_model · W[ids[p], :]            for every position p of the ids
//   backward    given g = ∂loss/∂y, find ∂loss/∂W:
//               ∂y[p, j] / ∂W[v, j] = √d_model when ids[p] = v, else 0
//               ∂W[v, :] = Σ over the positions p with ids[p] = v of √d_model · g[p, :]
//   A token used twice gets both contributions; a row no position used stays 0. (attnlab keeps no special
//   padding row: the pad id 0 is a token like any other here; the masks and the loss keep pads out.)
//
// Shapes: ids.shape is [B, T] (or [T], or [B, T, K]), ids.values holds its ids.shape.numel() ids in row-major
// order; g is [ids.shape..., d_model], so position p's row of g starts at g.data() + p * d_model, with
// d_model = g.shape().cols(). Return ∂W, [vocab_size, d_model]: row v starts at dW.data() + v * d_model.
//
// Check:  tools/exercise.sh embedding_backward
//   check.cpp runs the library's √d_model · embedding(W, ids) forward and backward with the same g, and compares
//   its ∂W with yours, number by number.
#include "exercise.h"

namespace attnlab::exercises {

Tensor embedding_backward(const TokenIds& ids, const Tensor& g, int64_t vocab_size) {
  Tensor dW = Tensor::zeros({vocab_size, g.shape().cols()});                 // [V, d_model], ∂loss/∂W
  // TODO: for each position p, add √d_model · (row p of g) into the row of dW its id names.
  return dW;
}

}  // namespace attnlab::exercises
