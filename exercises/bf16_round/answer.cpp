// answer.cpp — the project's answer to bf16_round (exercise.cpp says what is asked). The library does the same in
// one sum, upper16(b + 0x7FFF + last_kept_bit): 0x7FFF + 1 carries into the kept bits exactly when cut > 0x8000,
// or cut = 0x8000 and the last kept bit is 1 (to_bfloat16, src/tensor/bfloat16.cpp).
#include <cstdint>

#include "exercise.h"

namespace attnlab::exercises {

uint16_t round_to_bfloat16_bits(uint32_t b) {
  const uint32_t exponent = (b >> 23) & 0xFFu, mantissa = b & 0x7FFFFFu;
  const bool is_nan = exponent == 0xFFu && mantissa != 0;
  if (is_nan) return static_cast<uint16_t>((b >> 16) | 0x0040u);  // a NaN stays one: its sign, the quiet bit
  const uint32_t upper = b >> 16, cut = b & 0xFFFFu;              // the 16 bits kept, the 16 cut off
  const uint32_t last_kept_bit = upper & 1u;
  const bool up = cut > 0x8000u || (cut == 0x8000u && last_kept_bit == 1u);
  return static_cast<uint16_t>(upper + (up ? 1u : 0u));  // a carry steps the exponent; past the largest, to inf
}

}  // namespace attnlab::exercises
