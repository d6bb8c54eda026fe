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
// The mask m — already scaled, one number per element — is drawn from `gen`, and drawn again in backward from a
// saved copy of the generator (see below). The draw: the obvious version is
// `m_i = gen.uniform() < p ? 0 : 1/(1 − p)`, one 64-bit draw per number; here one 64-bit draw serves two numbers,
// its low and its high 32 bits u, and u < round(p · 2³²) drops: p is honoured to within 2⁻³³, at half the cost.
// With p = 0 nothing is drawn (the generator does not advance, as in PyTorch) and y = x, but the op is still
// recorded, so a model with dropout 0 has the same graph as one with dropout 0.1.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <vector>

#include "autograd/ops.h"
#include "tensor/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

// Calls visit(i, m_i) for i = 0 … n−1, the mask values in order: m_i = 0 with probability p, else 1/(1 − p).
// One 64-bit draw serves two numbers (its low, then its high 32 bits); nothing is drawn when p = 0.
template <class Visit>
void for_each_mask_value(int64_t n, real p, Generator& gen, Visit visit) {
  const real keep_scale = real(1) / (real(1) - p);                      // 1 / (1 - p)
  if (p == 0) {
    for (int64_t i = 0; i < n; ++i) visit(i, real(1));
    return;
  }
  const uint64_t threshold = static_cast<uint64_t>(std::llround(static_cast<double>(p) * 0x1.0p32));
  for (int64_t i = 0; i < n; i += 2) {
    const uint64_t bits = gen.next_u64();                              // two 32-bit uniform numbers
    visit(i, (bits & 0xffffffffu) < threshold ? real(0) : keep_scale);  // m_i ∈ {0, 1/(1 - p)}
    if (i + 1 < n) visit(i + 1, (bits >> 32) < threshold ? real(0) : keep_scale);
  }
}

}  // namespace

void draw_dropout_mask(real* m, int64_t n, real p, Generator& gen) {
  for_each_mask_value(n, p, gen, [m](int64_t i, real mask_value) { m[i] = mask_value; });
}

Tensor dropout(const Tensor& x, real p, Generator& gen) {
  if (!(p >= 0 && p < 1)) {                                             // also refuses NaN
    std::ostringstream message;
    message << "dropout: the drop probability p must be in [0, 1) (0 drops nothing; 1 would drop everything "
               "and scale by 1/0), got " << p;
    throw Error(message.str());
  }
  // The mask is not stored: backward draws it again from a copy of the generator as it was before forward
  // drew, which gives the very same numbers (the obvious version keeps an x-sized mask tensor alive from
  // forward to backward — a tenth of the base model's training memory, over all its dropout layers).
  const Generator replay = gen;                                         // the state the mask is drawn from
  const int64_t n = x.numel();
  Tensor y = Tensor::zeros(x.shape());                                  // same shape as x
  const real* px = x.data();
  real* py = y.data();
  for_each_mask_value(n, p, gen, [px, py](int64_t i, real m) { py[i] = px[i] * m; });  // y = x ⊙ m

  record(y, "dropout", {x}, [x, p, replay](TensorNode& out) {
    const real* g = out.grad.data();                                    // same shape as x
    real* gx = x.grad();
    Generator gen = replay;                                             // the same draws as forward
    for_each_mask_value(x.numel(), p, gen, [g, gx](int64_t i, real m) { gx[i] += g[i] * m; });  // ∂(x ⊙ m)/∂x = m
  });
  return y;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
