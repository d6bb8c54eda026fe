// Exercise bf16_round (chapter tensor): round a float32 to bfloat16, on its bits.
//
// A bfloat16 is the upper 16 bits of a float32: the same sign and 8 exponent bits, 7 of the 23 mantissa bits.
//
//     float32 b   s eeeeeeee mmmmmmm | mmmmmmmmmmmmmmmm          upper = b >> 16, cut = b & 0xFFFF
//     bfloat16    s eeeeeeee mmmmmmm                            upper, or upper + 1
//
// The 16 bits cut off are a fraction of the last kept bit: cut / 0x10000. Round to nearest, ties to even:
//   cut < 0x8000 (below half)   → upper                          (toward zero)
//   cut > 0x8000 (above half)   → upper + 1                      (away from zero: the sign is apart, so this
//   cut = 0x8000 (exactly half) → whichever of the two is even     holds for negative numbers too)
//                                 (its last bit 0)
// upper + 1 may carry out of the mantissa into the exponent: 1.1111111 × 2^e becomes 1.0000000 × 2^(e+1), and
// from the largest finite exponent on to infinity (0x7F80): overflow, done right by the same + 1. Subnormals
// (exponent 0) and ±0 need nothing special.
// One case does: a NaN (exponent all ones, mantissa not 0) whose mantissa lives only in the cut-off bits would
// become infinity, and 0xFFFFFFFF (a negative NaN) would wrap around to +0. Return a NaN for a NaN, with its sign
// (the library sets the quiet bit, 0x0040, of the upper half).
//
// Check:  tools/exercise.sh bf16_round
//   compares yours with the library's to_bfloat16 (src/tensor/bfloat16.h) on hand-picked floats — ties both
//   ways, the largest finite float, overflow, subnormals, negative numbers, NaNs — then on a million random ones.
#include "exercise.h"

#include <cstdint>

namespace attnlab::exercises {

uint16_t round_to_bfloat16_bits(uint32_t b) {
  // TODO: the rule above.
  return 0;
}

}  // namespace attnlab::exercises
