// dropout.cpp — inverted dropout (Srivastava et al. 2014, "Dropout: A Simple Way to Prevent Neural Networks
// from Overfitting"; the Transformer applies it to every sub-layer's output and to the embeddings, P_drop = 0.1).
//
// During training each number is zeroed with probability p; the survivors are scaled by 1/(1 - p), so that the
// expected value of every output equals its input and nothing has to change at inference (where dropout is
// simply not called):
//
//   forward                                             backward (g = ∂loss/∂y)
//   m_i = 0 with probability p, else 1/(1 - p)          ∂x_i += g_i · m_i
//   y_i = x_i · m_i                                     (the same mask: a dropped number passes no gradient)
//
// E[y_i] = (1 - p) · x_i / (1 - p) + p · 0 = x_i.
// The mask m — already scaled, one number per element — is drawn from `gen` (u < p drops, u uniform in [0, 1))
// and kept for backward. With p = 0 nothing is drawn (the generator does not advance, as in PyTorch) and y = x,
// but the op is still recorded, so a model with dropout 0 has the same graph as one with dropout 0.1.
#include <sstream>
#include <vector>

#include "autograd/ops.h"
#include "tensor/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

Tensor dropout(const Tensor& x, real p, Generator& gen) {
  if (!(p >= 0 && p < 1)) {                                             // also refuses NaN
    std::ostringstream message;
    message << "dropout: the drop probability p must be in [0, 1) (0 drops nothing; 1 would drop everything "
               "and scale by 1/0), got " << p;
    throw Error(message.str());
  }
  const int64_t n = x.numel();
  const real keep_scale = real(1) / (real(1) - p);                      // 1 / (1 - p)
  std::vector<real> mask(static_cast<size_t>(n), real(1));              // same shape as x, flattened
  if (p > 0) {
    for (real& m : mask) m = gen.uniform() < p ? real(0) : keep_scale;  // m_i ∈ {0, 1/(1 - p)}
  }

  Tensor y = Tensor::zeros(x.shape());                                  // same shape as x
  const real* px = x.data();
  real* py = y.data();
  for (int64_t i = 0; i < n; ++i) py[i] = px[i] * mask[static_cast<size_t>(i)];  // y = x ⊙ m

  record(y, "dropout", {x}, [x, mask = std::move(mask)](TensorNode& out) {
    const real* g = out.grad.data();                                    // same shape as x
    real* gx = x.grad();
    for (size_t i = 0; i < mask.size(); ++i) gx[i] += g[i] * mask[i];  // ∂(x ⊙ m)/∂x = m
  });
  return y;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
