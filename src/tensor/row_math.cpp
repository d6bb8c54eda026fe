// row_math.cpp — vectorised row max, row sum, row dot product and e^(x − shift) with a fixed packet order
// (see row_math.h).
#include "tensor/row_math.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

namespace vec = Eigen::internal;
using Packet = vec::packet_traits<real>::type;                         // 16 floats / 8 doubles with AVX-512
constexpr int64_t P = vec::packet_traits<real>::size;               // numbers per Packet
constexpr real minus_infinity = -std::numeric_limits<real>::infinity();

// The last n % P numbers of the row, padded with `fill` to one whole packet (a local aligned buffer, so the
// partial packet is computed exactly like the full ones).
Packet load_tail(const real* x, int64_t count, real fill) {
  alignas(64) real tail[P];
  for (int64_t j = 0; j < P; ++j) tail[j] = j < count ? x[j] : fill;
  return vec::pload<Packet>(tail);
}

// The sum and the max of one packet's lanes, by Eigen's predux and predux_max. With AVX-512 they are GCC's
// _mm512_reduce_add_ps / _max_ps, whose code in avx512fintrin.h starts a shuffle from a deliberately undefined
// vector (__Y); GCC 12 then warns "'__Y' is used uninitialized" wherever they are inlined, a false positive (every
// lane read is defined). The warning is turned off here, around these two, and nowhere else.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
real lanes_sum(const Packet& packet) { return vec::predux(packet); }
real lanes_max(const Packet& packet) { return vec::predux_max(packet); }
#pragma GCC diagnostic pop

void store_tail(real* y, int64_t count, const Packet& packet) {
  alignas(64) real tail[P];
  vec::pstore(tail, packet);
  for (int64_t j = 0; j < count; ++j) y[j] = tail[j];
}

// e^x, except that it is exactly 0 where e^x is below the smallest normal number — x < ln(FLT_MIN) ≈ −87.3 in
// float, ln(DBL_MIN) ≈ −708.4 in double — and so for −inf (a hidden key). Eigen's polynomial clamps its input, and
// how far it clamps differs between instruction sets (SSE2 gives e^(−1000) as a tiny denormal, AVX-512 as 0);
// cutting at the normal range gives the same numbers on every CPU. (std::exp would give a denormal or 0 there:
// an absolute difference below 1.2e-38.)
Packet exp_exact_zero(const Packet& x) {
  const Packet underflow = vec::pcmp_lt(x, vec::pset1<Packet>(std::log(std::numeric_limits<real>::min())));
  return vec::pselect(underflow, vec::pzero(x), vec::pexp(x));
}

}  // namespace

real row_max(const real* x, int64_t n) {
  const int64_t full = n / P * P;                                       // numbers in whole packets
  Packet m = vec::pset1<Packet>(minus_infinity);
  for (int64_t j = 0; j < full; j += P) m = vec::pmax(m, vec::ploadu<Packet>(x + j));
  if (full < n) m = vec::pmax(m, load_tail(x + full, n - full, minus_infinity));
  return lanes_max(m);                                                   // max is exact in any order
}

int64_t row_argmax(const real* x, int64_t n) {
  constexpr int64_t lanes = 16;                                         // lane l looks at j ≡ l (mod 16)
  real value[lanes];                                                    // each lane's best x so far …
  int64_t index[lanes];                                                 // … and the first j where it was
  for (int64_t l = 0; l < lanes; ++l) {                                 // every lane starts at x[0], as the
    value[l] = x[0];                                                    // obvious loop does (a NaN x[0] then
    index[l] = 0;                                                       // stays: nothing is larger)
  }
  const int64_t full = n / lanes * lanes;
  for (int64_t j = 0; j < full; j += lanes) {
    for (int64_t l = 0; l < lanes; ++l) {                               // no branch: vector compares and selects
      const bool larger = x[j + l] > value[l];                          // strict: a lane keeps its first maximum
      value[l] = larger ? x[j + l] : value[l];
      index[l] = larger ? j + l : index[l];
    }
  }
  int64_t best = index[0];                                              // the lanes' winners: the largest value,
  for (int64_t l = 1; l < lanes; ++l) {                                 // and of equal ones the first index
    if (value[l] > x[best] || (value[l] == x[best] && index[l] < best)) best = index[l];
  }
  for (int64_t j = full; j < n; ++j) {                                  // the last n % 16, after every lane's j
    if (x[j] > x[best]) best = j;
  }
  return best;
}

real exp_shifted(const real* x, real shift, int64_t n, real* y) {
  const int64_t full = n / P * P;
  const Packet s = vec::pset1<Packet>(shift);
  Packet total = vec::pzero(s);                                         // P partial sums
  for (int64_t j = 0; j < full; j += P) {
    const Packet e = exp_exact_zero(vec::psub(vec::ploadu<Packet>(x + j), s));   // e^(x_j − shift)
    vec::pstoreu(y + j, e);
    total = vec::padd(total, e);
  }
  if (full < n) {
    const Packet e = exp_exact_zero(vec::psub(load_tail(x + full, n - full, minus_infinity), s));  // pad → 0
    store_tail(y + full, n - full, e);
    total = vec::padd(total, e);
  }
  return lanes_sum(total);                                               // the P partial sums, fixed order
}

real row_sum(const real* x, int64_t n) {
  const int64_t full = n / P * P;
  Packet total = vec::pset1<Packet>(0);
  for (int64_t j = 0; j < full; j += P) total = vec::padd(total, vec::ploadu<Packet>(x + j));
  if (full < n) total = vec::padd(total, load_tail(x + full, n - full, real(0)));
  return lanes_sum(total);
}

real row_dot(const real* x, const real* y, int64_t n) {
  const int64_t full = n / P * P;
  Packet total = vec::pset1<Packet>(0);
  for (int64_t j = 0; j < full; j += P) {
    total = vec::pmadd(vec::ploadu<Packet>(x + j), vec::ploadu<Packet>(y + j), total);  // += x_j · y_j
  }
  if (full < n) {                                                       // the padded tail: 0 · 0 adds nothing
    total = vec::pmadd(load_tail(x + full, n - full, real(0)), load_tail(y + full, n - full, real(0)), total);
  }
  return lanes_sum(total);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
