// fused_dropout.cpp — dropout fused with the op next to it, so that the tensor between the two is never made.
//
// The Transformer drops out in two places that are each followed (or preceded) by a cheap elementwise op:
//   the residual connection      y = x + Dropout(s)          s = a sublayer's output   (§5.4, "Residual Dropout")
//   the feed-forward hidden      y = Dropout(ReLU(h))        h = x·W₁ᵀ + b₁            (§3.3)
// Written as two ops, each keeps its own output alive until backward: Dropout(s) [B, T, d] for the sum, and
// ReLU(h) [B, T, d_ff] for the dropout — neither needed by any backward. Fused, they are one op and one output:
//
//   add_dropout(x, s)                                    backward (g = ∂L/∂y)
//     y_i = x_i + s_i · m_i                              ∂s_i += g_i · m_i  ∂x_i += g_i
//   relu_dropout(h)
//     y_i = max(h_i, 0) · m_i                            ∂h_i += g_i · m_i · [h_i > 0]
//
// m is exactly the mask dropout() draws (one key from the generator, the mask a function of the key and the
// index: ops/dropout.cpp), so a fused op gives the very bits of the two ops it replaces and leaves the generator
// where they would — a seeded run does not change. tests/kernels/test_fused_dropout.cpp checks both, forward and
// backward, against add(x, dropout(s)) and dropout(relu(h)); under model.path: paper the layers run those
// chains themselves (add_with_dropout and FeedForward::forward, src/nn/layers.cpp).
// What it saves, measured when these ops came in (docs/guide/performance.md): the base benchmark model's training peak
// RSS went from 594 to 507 MiB — one [B, T, d] or [B, T, d_ff] tensor fewer kept per dropout.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <sstream>
#include <type_traits>

#include "autograd/ops.h"
#include "kernels/gradient_buffer.h"
#include "kernels/kernels.h"
#include "tensor/parallel.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr int64_t mask_block = 128;                                    // mask values made at a time

void check_p(const char* op, real p) {
  if (!(p >= 0 && p < 1)) {                                             // also refuses NaN
    std::ostringstream message;
    message << op << ": the drop probability p must be in [0, 1), got " << p;
    throw Error(message.str());
  }
}

// ReLU's backward gate: v where h > 0, else +0 — ReLU passes the gradient only where it passed the input.
// Written as the select `h > 0 ? v : 0`, GCC 12 turns the loop into vector code only with AVX-512's mask
// registers: the x86-64-v3 (AVX2) build ran relu_dropout's backward one number at a time, 9 times the forward's
// time (`attnlab bench --profile`). Written as a branch, "if h > 0, multiply", it is worse still on every width:
// the sign of h after ReLU is a coin toss, and the mispredicted branches made it 20 times the forward's time.
// So the select is made of bits: the comparison gives all ones or all zeros, and v's bits are ANDed with it —
// exactly v or +0, which every width vectorises.
inline real kept_where_positive(real h, real v) {
  using Bits = std::conditional_t<sizeof(real) == sizeof(uint32_t), uint32_t, uint64_t>;
  const Bits keep = Bits(0) - Bits(h > 0);                              // all ones where h > 0, else all zeros
  return std::bit_cast<real>(std::bit_cast<Bits>(v) & keep);
}

// f(i, count, m) for consecutive blocks [i, i + count) of [0, n), m[t] the dropout mask of `key` at i + t, block
// by block of each chunk on all threads (tensor/parallel.h). f loops over its block itself, a plain loop over
// arrays that the compiler can vectorise as long as the loop has no branch in it (see relu_dropout's backward).
template <typename F>
void for_each_mask_block(int64_t n, uint64_t key, real p, const F& f) {
  for_each_chunk(n, [=](int64_t begin, int64_t end) {
    real m[mask_block];
    for (int64_t i = begin; i < end; i += mask_block) {
      const int64_t count = std::min(end - i, mask_block);
      dropout_mask(key, i, count, p, m);
      f(i, count, m);
    }
  });
}

}  // namespace

Tensor add_dropout(const Tensor& x, const Tensor& s, real p, Generator& gen) {
  check_p("add_dropout", p);
  if (x.shape() != s.shape()) {
    throw Error("add_dropout: x " + x.shape().str() + " and s " + s.shape().str() + " must have the same shape");
  }
  const uint64_t key = p > 0 ? draw_dropout_key(gen) : 0;              // as dropout(): p = 0 draws nothing
  Tensor y = Tensor::empty(x.shape());                                  // [..], every number written
  const real* px = x.data();
  const real* ps = s.data();
  real* py = y.data();
  for_each_mask_block(x.numel(), key, p, [=](int64_t i, int64_t count, const real* m) {
    for (int64_t t = 0; t < count; ++t) py[i + t] = px[i + t] + ps[i + t] * m[t];  // y = x + s ⊙ m
  });

  record(y, "add_dropout", {x, s}, [x, s, p, key](TensorNode& out) {
    const real* g = out.grad.data();
    bool first = false;                                                 // ∂s += g ⊙ m, written when first
    if (real* gs = gradient_buffer(s, first)) {                         // (kernels/gradient_buffer.h)
      if (first) {
        for_each_mask_block(s.numel(), key, p, [=](int64_t i, int64_t count, const real* m) {
          for (int64_t t = 0; t < count; ++t) gs[i + t] = g[i + t] * m[t];
        });
      } else {
        for_each_mask_block(s.numel(), key, p, [=](int64_t i, int64_t count, const real* m) {
          for (int64_t t = 0; t < count; ++t) gs[i + t] += g[i + t] * m[t];
        });
      }
    }
    // ∂x += g: when it is x's first gradient, x takes g's buffer itself (gradient_buffer.h) — after ∂s, which
    // reads g, and after s's buffer is made, in case s is x.
    if (!take_output_gradient(out, x) && wants_grad(x)) {
      real* gx = x.grad();
      for_each_index(x.numel(), [=](int64_t i) { gx[i] += g[i]; });
    }
  });
  return y;
}

Tensor relu_dropout(const Tensor& h, real p, Generator& gen) {
  check_p("relu_dropout", p);
  const uint64_t key = p > 0 ? draw_dropout_key(gen) : 0;
  Tensor y = Tensor::empty(h.shape());                                  // [..], every number written
  const real* ph = h.data();
  real* py = y.data();
  for_each_mask_block(h.numel(), key, p, [=](int64_t i, int64_t count, const real* m) {
    for (int64_t t = 0; t < count; ++t) py[i + t] = std::max(ph[i + t], real(0)) * m[t];  // y = relu(h) ⊙ m
  });

  record(y, "relu_dropout", {h}, [h, p, key](TensorNode& out) {
    const real* g = out.grad.data();
    const real* ph = h.data();
    bool first = false;                                                 // ∂h += g ⊙ m ⊙ [h > 0], written when
    real* gh = gradient_buffer(h, first);                               // first (kernels/gradient_buffer.h)
    if (!gh) return;
    // g · m is computed for every number and then kept or not (kept_where_positive): no branch, so it vectorises.
    if (first) {
      for_each_mask_block(h.numel(), key, p, [=](int64_t i, int64_t count, const real* m) {
        for (int64_t t = 0; t < count; ++t) gh[i + t] = kept_where_positive(ph[i + t], g[i + t] * m[t]);
      });
    } else {
      for_each_mask_block(h.numel(), key, p, [=](int64_t i, int64_t count, const real* m) {
        for (int64_t t = 0; t < count; ++t) gh[i + t] += kept_where_positive(ph[i + t], g[i + t] * m[t]);
      });
    }
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
