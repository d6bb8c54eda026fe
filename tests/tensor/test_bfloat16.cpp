// test_bfloat16.cpp — rounding a float to bfloat16 (src/tensor/bfloat16.h) is round to nearest, ties to even, bit
// for bit: every class of float by hand, every float against an independent formulation (by value, not by bits),
// and every float against the CPU's own rounding (vcvtneps2bf16) where the CPU has AVX512_BF16.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "tensor/bfloat16.h"
#include "tensor/product/bf16_product.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace attnlab;

namespace {

float from_bits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

uint16_t bf16_bits(uint32_t float_bits) { return to_bfloat16(from_bits(float_bits)).bits; }

// The independent formulation, by value: the two bfloat16 neighbours of a finite x are its upper half cut off
// (toward zero) and the next bfloat16 away from zero; the nearer one wins, a tie goes to the one whose last bit is
// 0. Distances are exact in double (both neighbours and x fit its 53 bits). Past the largest finite bfloat16 the
// next one "away from zero" is 2^128, as if the exponent went on: rounding there is overflow, to inf.
uint16_t round_by_value(uint32_t b) {
  const float x = from_bits(b);
  if (std::isnan(x)) return static_cast<uint16_t>((b >> 16) | 0x40);
  if (std::isinf(x)) return static_cast<uint16_t>(b >> 16);
  const uint16_t down = static_cast<uint16_t>(b >> 16), up = static_cast<uint16_t>(down + 1);
  const double below = std::fabs(static_cast<double>(from_bits(static_cast<uint32_t>(down) << 16)));
  const bool up_is_inf = (up & 0x7FFF) == 0x7F80;
  const double above = up_is_inf ? std::ldexp(1.0, 128) : std::fabs(static_cast<double>(from_bits(uint32_t(up) << 16)));
  const double magnitude = std::fabs(static_cast<double>(x));
  const double to_below = magnitude - below, to_above = above - magnitude;
  if (to_below < to_above) return down;
  if (to_above < to_below) return up;
  return (down & 1) == 0 ? down : up;
}

// The floats the two sweeps below run over: every upper half (every sign, exponent and kept mantissa: 65,536) with
// the lower halves where rounding decides — 0, 1, just below, at and just above the halfway point 0x8000, the
// largest two — and 56 more drawn at random: 4.2 M floats, ~0.1 s. All 2^32 floats take 12 s (the independent
// formulation) and 10 s (the CPU's rounding) on one core of the 2-core Zen 4 VM, too long for the suite; they
// agreed, every one, when this file was written (loop `low` over 0 … 65535 to run that again).
std::vector<uint32_t> lower_halves() {
  std::vector<uint32_t> lows{0x0000, 0x0001, 0x7FFE, 0x7FFF, 0x8000, 0x8001, 0xFFFE, 0xFFFF};
  uint32_t state = 12345;
  while (lows.size() < 64) {
    state = state * 1664525u + 1013904223u;                             // a fixed linear congruential sequence
    lows.push_back(state >> 16);
  }
  return lows;
}

}  // namespace

TEST_CASE("bfloat16 keeps the upper 16 bits of exact numbers and the sign of zero") {
  CHECK(bf16_bits(0x3F800000) == 0x3F80);                               // 1
  CHECK(bf16_bits(0xC0490000) == 0xC049);                               // −3.140625, exactly a bfloat16
  CHECK(bf16_bits(0x00000000) == 0x0000);
  CHECK(bf16_bits(0x80000000) == 0x8000);                               // −0 stays −0
  CHECK(to_float(bfloat16{0x3F80}) == 1.0f);
  CHECK(to_float(bfloat16{0x4049}) == 3.140625f);
}

TEST_CASE("bfloat16 rounds to nearest and ties to even") {
  CHECK(bf16_bits(0x3F807FFF) == 0x3F80);                               // below half of the last bit: down
  CHECK(bf16_bits(0x3F808001) == 0x3F81);                               // above half: up
  CHECK(bf16_bits(0x3F808000) == 0x3F80);                               // exactly half, last bit 0: stays (even)
  CHECK(bf16_bits(0x3F818000) == 0x3F82);                               // exactly half, last bit 1: up to even
  CHECK(bf16_bits(0xBF818000) == 0xBF82);                               // the same for negative numbers
  CHECK(bf16_bits(0x3F7FFFFF) == 0x3F80);                               // a carry out of the mantissa: 2^0
  CHECK(round_to_bfloat16(1.0f + 1.0f / 256) == 1.0f);                  // 1 + u is a tie: to 1
  CHECK(round_to_bfloat16(1.0f + 3.0f / 256) == 1.0f + 4.0f / 256);     // 1 + 3u is a tie: to 1 + 4u (even)
  // the relative error is at most the unit roundoff u = 2^−8
  CHECK(std::fabs(round_to_bfloat16(1.00390625f * 1.0000001f) - 1.00390625f * 1.0000001f) <=
        bfloat16_unit_roundoff * 1.00390625f * 1.0000001f);
}

TEST_CASE("bfloat16 keeps inf, overflows to inf, and keeps a NaN a quiet NaN with its sign") {
  CHECK(bf16_bits(0x7F800000) == 0x7F80);                               // +inf
  CHECK(bf16_bits(0xFF800000) == 0xFF80);                               // −inf
  CHECK(bf16_bits(0x7F7FFFFF) == 0x7F80);                               // float's largest rounds past bf16's: inf
  CHECK(bf16_bits(0xFF7FFFFF) == 0xFF80);
  CHECK(bf16_bits(0x7F7F7FFF) == 0x7F7F);                               // just below the halfway point: finite
  CHECK(bf16_bits(0x7F7F8000) == 0x7F80);                               // the tie goes to even, which is inf
  CHECK(bf16_bits(0x7FC00000) == 0x7FC0);                               // quiet NaN
  CHECK(bf16_bits(0x7F800001) == 0x7FC0);                               // a signalling NaN whose payload is cut off:
  CHECK(bf16_bits(0xFF800001) == 0xFFC0);                               // still a NaN (not inf), quiet, signed
  CHECK(bf16_bits(0x7FA00000) == 0x7FE0);                               // the payload's upper bits are kept
  CHECK(std::isnan(round_to_bfloat16(std::numeric_limits<float>::quiet_NaN())));
}

TEST_CASE("bfloat16 rounds subnormal floats into its own subnormals") {
  CHECK(bf16_bits(0x00000001) == 0x0000);                               // the smallest float: to 0
  CHECK(bf16_bits(0x80000001) == 0x8000);                               // to −0
  CHECK(bf16_bits(0x00008000) == 0x0000);                               // a tie: to the even 0
  CHECK(bf16_bits(0x00018000) == 0x0002);                               // a tie: to the even 2
  CHECK(bf16_bits(0x00010000) == 0x0001);                               // bf16's smallest subnormal, exact
  CHECK(bf16_bits(0x007FFFFF) == 0x0080);                               // the largest subnormal rounds up to 2^−126
}

TEST_CASE("bfloat16 rounding agrees with the independent formulation on every upper half and the deciding lower halves") {
  const std::vector<uint32_t> lows = lower_halves();
  int64_t disagreements = 0;
  uint32_t first = 0;
  for (uint32_t high = 0; high < 65536; ++high) {
    for (const uint32_t low : lows) {
      const uint32_t b = high << 16 | low;
      if (bf16_bits(b) != round_by_value(b)) {
        if (disagreements++ == 0) first = b;
      }
    }
  }
  INFO("first disagreement at float bits 0x" << std::hex << first);
  CHECK(disagreements == 0);
}

#if defined(__x86_64__)
namespace {

// The CPU's rounding of 16 floats, when it has AVX512_BF16: vcvtneps2bf16.
__attribute__((target("avx512f,avx512bf16"))) void cpu_round(const uint32_t* floats, uint16_t* out) {
  const __m256bh rounded = _mm512_cvtneps_pbh(_mm512_loadu_ps(reinterpret_cast<const float*>(floats)));
  std::memcpy(out, &rounded, 32);
}

}  // namespace

TEST_CASE("bfloat16 rounding agrees with the CPU's vcvtneps2bf16, except that the CPU reads subnormals as 0") {
  if (!bf16_fast_available()) {
    MESSAGE("skipped: " << bf16_support());
    return;
  }
  const std::vector<uint32_t> lows = lower_halves();
  int64_t disagreements = 0;
  uint32_t first = 0;
  for (uint32_t high = 0; high < 65536; ++high) {
    uint32_t floats[16];
    uint16_t rounded[16];
    for (size_t low = 0; low < lows.size(); low += 16) {
      for (size_t l = 0; l < 16; ++l) floats[l] = high << 16 | lows[low + l];
      cpu_round(floats, rounded);
      for (int l = 0; l < 16; ++l) {
        const bool subnormal = (floats[l] & 0x7F800000u) == 0 && (floats[l] & 0x007FFFFFu) != 0;
        const uint16_t expected = subnormal ? static_cast<uint16_t>((floats[l] >> 16) & 0x8000) : bf16_bits(floats[l]);
        if (rounded[l] != expected && disagreements++ == 0) first = floats[l];
      }
    }
  }
  INFO("first disagreement at float bits 0x" << std::hex << first);
  CHECK(disagreements == 0);
}
#endif
