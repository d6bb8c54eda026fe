// Exercise cross_entropy_backward (chapter autograd): the backward pass of the training loss.
//
// The Transformer is trained by cross entropy between its predicted distribution over the V words and the
// target word, with label smoothing ε = 0.1 ("Attention Is All You Need" §5.4), averaged over the positions of
// a batch that are not padding. The library fuses log-softmax and the loss into one op
// (src/autograd/ops/cross_entropy.cpp); here you write its backward.
//
//   forward     for each position with logits z [V] and target t:
//                 p_c = e^(z_c) / Σ_k e^(z_k)                       the model's distribution (softmax)
//                 q_c = (1 − ε) · [c = t] + ε / V                   the smoothed target: ε spread over ALL V
//                                                                   classes, the target's own included
//                 H = −Σ_c q_c · log p_c                            this position's loss
//               y = (1/N) Σ H over the N positions whose target is not ignore_id (padding counts nowhere)
//   backward    given g = ∂L/∂y (one number), find ∂L/∂z_c for every position and class:
//                 ∂(−log p_k)/∂z_c = …             work this one out first, from log p_k = z_k − log Σ_j e^(z_j)
//                 ∂H/∂z_c = Σ_k q_k · ∂(−log p_k)/∂z_c = …           then this sum; Σ_k q_k = 1 helps
//               then the mean's 1/N and g; a padding position gets 0.
//
// Shapes: logits [..., V]: rows = logits.shape().rows() positions, V = logits.shape().cols(), row r starts at
// logits.data() + r * V. targets.values[r] is the target of row r (an id in [0, V), or ignore_id). Return
// ∂L/∂logits shaped like logits. Subtract the row's max before e^(z_c) (softmax.cpp says why). If every position
// is padding (N = 0) the loss is the constant 0: return zeros.
//
// Check:  tools/exercise.sh cross_entropy_backward
//   check.cpp turns your function into an op with record(), as src/autograd/ops/cross_entropy.cpp does, and
//   compares the gradient it gives with central differences (L(z + h) − L(z − h)) / 2h, number by number.
#include "exercise.h"

namespace attnlab::exercises {

Tensor cross_entropy_backward(const Tensor& logits, const TokenIds& targets, real label_smoothing,
                              int32_t ignore_id, real g) {
  Tensor dz = Tensor::zeros(logits.shape());                         // [..., V], ∂L/∂logits
  // TODO: count N, then for each kept row compute p and write g · (∂H/∂z) / N into that row of dz.
  return dz;
}

}  // namespace attnlab::exercises
