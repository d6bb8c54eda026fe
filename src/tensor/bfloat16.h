// bfloat16.h — the "brain floating point" number: float32 with the last 16 bits of its mantissa cut off.
//
// A float32 is 1 sign bit, 8 exponent bits and 23 mantissa bits; a bfloat16 keeps the first 16 of those 32 bits:
//
//     float32   s eeeeeeee mmmmmmm mmmmmmmmmmmmmmmm        x = (−1)^s · 2^(e − 127) · 1.m      (normal numbers)
//     bfloat16  s eeeeeeee mmmmmmm                         the same sign, the same 8 exponent bits, 7 mantissa bits
//
// What it keeps: float32's whole range (±3.4·10^38 down to 1.2·10^−38, and inf and NaN), so a product or a
// gradient that fits a float fits a bfloat16 — unlike float16 (5 exponent bits, largest 65504), which needs loss
// scaling. What it loses: 16 of the 24 significant bits — 8 are left (7 stored, the leading 1 implied), about 2.4
// decimal digits instead of 7.2. Next to 1 the gap is 2^−7, so rounding to nearest errs by at most half of it, the
// unit roundoff
//
//     u = 2^−7 / 2 = 2^−8 ≈ 0.0039         |to_float(to_bfloat16(x)) − x| ≤ u · |x|    (x normal, no overflow)
//
// against float32's 2^−24 (u = 2^(1−p) / 2 for p significant bits: 24 in float32, 8 in bfloat16). So bfloat16
// holds the operands of a product; the sums of a product stay in float32 (tensor/product/bf16_product.h), since
// adding thousands of numbers each rounded to 8 bits would lose the sum.
//
// Rounding (to_bfloat16) is to nearest, ties to even, on the bits: the 16 bits cut off are a fraction of the last
// kept bit; below half it rounds down, above half up, and exactly half (0x8000) rounds to the neighbour whose last
// kept bit is 0. As integer arithmetic on the float's bits b (a carry out of the mantissa steps the exponent up,
// and from the largest finite exponent on to inf, which is overflow done right):
//
//     upper16( b + 0x7FFF + bit16(b) )
//
// NaN is the one case this sum gets wrong (a NaN whose payload lives in the low 16 bits would round into inf), so a
// NaN is kept a quiet NaN with its sign. Subnormal floats round the same way into bfloat16's subnormals.
// tests/tensor/test_bfloat16.cpp checks every class by hand, and every upper half with the lower halves that decide
// the rounding against an independent formulation (by value) and against the CPU's own rounding (vcvtneps2bf16).
#pragma once

#include <cstdint>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// A bfloat16 by its 16 bits (the upper half of the float32 it stands for). Arithmetic happens in float32.
struct bfloat16 {
  uint16_t bits = 0;
};

bfloat16 to_bfloat16(float x);        // round to nearest, ties to even; NaN stays a quiet NaN with its sign
float to_float(bfloat16 x);           // exact: the 16 bits, followed by 16 zero bits
float round_to_bfloat16(float x);     // to_float(to_bfloat16(x)): x as a bfloat16 holds it

inline constexpr float bfloat16_unit_roundoff = 1.0f / 256;   // u = 2^−8

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
