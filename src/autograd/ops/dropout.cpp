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
//
// Where the randomness comes from: a counter-based generator. Each dropout call draws ONE 64-bit key k from
// `gen`; the mask is then a pure function of k and the element's index i:
//
//   bits_q = splitmix64(k + (q + 1) · γ)        q = ⌊i / 2⌋, γ = 0x9E3779B97F4A7C15 (SplitMix64's increment)
//   u_i    = the low 32 bits of bits_q for even i, the high 32 bits for odd i
//   m_i    = 0 if u_i < round(p · 2³²), else 1/(1 − p)                 (p honoured to within 2⁻³³)
//
// bits_0, bits_1, … is exactly the SplitMix64 stream seeded with k (Steele, Lea & Flood 2014, the generator
// behind Java's SplittableRandom), so the numbers are as good as that generator's; what the counter form buys:
//   * backward recomputes the mask from k (one saved number) instead of keeping an x-sized mask tensor alive
//     from forward to backward;
//   * any element can be computed on its own, so the loops run in parallel (the same mask for any thread count)
//     and vectorise (eight 64-bit hashes at a time with AVX-512), and a fused kernel (scaled_dot_attention) computes
//     exactly the mask dropout() would, row by row, without storing it;
//   * the generator advances by one draw per call, whatever the size of x, so a run resumed from a checkpoint
//     (which saves the generator's state) draws the very same keys.
// The slow, obvious version is `m_i = gen.uniform() < p ? 0 : 1/(1 − p)`, one sequential draw per number, with
// the mask kept for backward; tests/autograd/test_ops_loss_misc.cpp checks the mask against the formulas above, written
// out element by element.
// With p = 0 nothing is drawn (the generator does not advance, as in PyTorch) and y = x, but the op is still
// recorded, so a model with dropout 0 has the same graph as one with dropout 0.1.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "autograd/ops.h"
#include "tensor/parallel.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr uint64_t golden_gamma = 0x9E3779B97F4A7C15ull;               // SplitMix64's increment γ

// SplitMix64's output function: a bijection of 64-bit numbers that mixes every input bit into every output bit.
inline uint64_t splitmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// round(p · 2³²), the 32-bit numbers below which an element is dropped. (At most 2³² − 1: only a p within 2⁻³³ of
// 1, which float cannot hold, would round up to 2³², and drops with probability 1 − 2⁻³² instead.)
uint32_t drop_threshold(real p) {
  const double threshold = std::round(static_cast<double>(p) * 0x1.0p32);
  return threshold >= 0x1.0p32 ? UINT32_MAX : static_cast<uint32_t>(threshold);
}

// The 32-bit number u_i of element i: its half of pair i / 2's hash.
inline uint32_t uniform_bits(uint64_t key, int64_t i) {
  const uint64_t bits = splitmix64(key + static_cast<uint64_t>(i / 2 + 1) * golden_gamma);
  return static_cast<uint32_t>(i % 2 == 0 ? bits : bits >> 32);        // even i: low half, odd i: high half
}

constexpr int64_t mask_span = 1024;                                     // mask values dropout() asks for at once

}  // namespace

uint64_t draw_dropout_key(Generator& gen) { return gen.next_u64(); }

void dropout_mask(uint64_t key, int64_t first, int64_t n, real p, real* m) {
  const real keep_scale = real(1) / (real(1) - p);                      // 1 / (1 - p)
  if (p == 0) {
    std::fill(m, m + n, real(1));
    return;
  }
  const uint32_t threshold = drop_threshold(p);
  auto value = [=](uint32_t u) { return u < threshold ? real(0) : keep_scale; };  // m_i ∈ {0, 1/(1 - p)}
  int64_t i = first;                                                    // the next element to write
  const int64_t end = first + n;
  if (i < end && i % 2 == 1) {                                          // a pair's odd half first
    m[0] = value(uniform_bits(key, i));
    ++i;
  }
  // Whole pairs: one hash, two elements — the loop the compiler vectorises.
  const int64_t pairs = (end - i) / 2;
  real* out = m + (i - first);
  const uint64_t q0 = static_cast<uint64_t>(i / 2);
  for (int64_t t = 0; t < pairs; ++t) {
    const uint64_t bits = splitmix64(key + (q0 + static_cast<uint64_t>(t) + 1) * golden_gamma);
    out[2 * t] = value(static_cast<uint32_t>(bits));                   // even element: low half
    out[2 * t + 1] = value(static_cast<uint32_t>(bits >> 32));         // odd element: high half
  }
  i += 2 * pairs;
  if (i < end) m[i - first] = value(uniform_bits(key, i));             // an even element whose pair ends past n
}

Tensor dropout(const Tensor& x, real p, Generator& gen) {
  if (!(p >= 0 && p < 1)) {                                             // also refuses NaN
    std::ostringstream message;
    message << "dropout: the drop probability p must be in [0, 1) (0 drops nothing; 1 would drop everything "
               "and scale by 1/0), got " << p;
    throw Error(message.str());
  }
  const uint64_t key = p > 0 ? draw_dropout_key(gen) : 0;              // p = 0 draws nothing
  const int64_t n = x.numel();
  Tensor y = Tensor::empty(x.shape());                                  // same shape as x, every number written
  const real* px = x.data();
  real* py = y.data();
  // Chunks of the flat index range in parallel: each chunk's mask depends only on the key and the indices.
  for_each_chunk(n, [=](int64_t begin, int64_t end) {
    real m[mask_span];
    for (int64_t i = begin; i < end; i += mask_span) {
      const int64_t count = std::min(end - i, mask_span);
      dropout_mask(key, i, count, p, m);
      for (int64_t t = 0; t < count; ++t) py[i + t] = px[i + t] * m[t];  // y = x ⊙ m
    }
  });

  record(y, "dropout", {x}, [x, p, key](TensorNode& out) {
    const real* g = out.grad.data();                                    // same shape as x
    real* gx = x.grad();                                                // same shape as x
    for_each_chunk(x.numel(), [=](int64_t begin, int64_t end) {
      real m[mask_span];
      for (int64_t i = begin; i < end; i += mask_span) {
        const int64_t count = std::min(end - i, mask_span);
        dropout_mask(key, i, count, p, m);                              // the forward's mask, recomputed
        for (int64_t t = 0; t < count; ++t) gx[i + t] += g[i + t] * m[t];  // ∂(x ⊙ m)/∂x = m
      }
    });
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
