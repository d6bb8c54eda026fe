// bfloat16.cpp — rounding a float32 to a bfloat16 and back (see bfloat16.h for the format and the equation).
#include "tensor/bfloat16.h"

#include <cstring>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

uint32_t bits_of(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

}  // namespace

bfloat16 to_bfloat16(float x) {
  const uint32_t b = bits_of(x);
  const bool is_nan = (b & 0x7F800000u) == 0x7F800000u && (b & 0x007FFFFFu) != 0;
  if (is_nan) return {static_cast<uint16_t>((b >> 16) | 0x0040u)};   // the upper half, quiet bit set (bit 6)
  const uint32_t last_kept_bit = (b >> 16) & 1u;                       // ties go to the even neighbour
  return {static_cast<uint16_t>((b + 0x7FFFu + last_kept_bit) >> 16)};
}

float to_float(bfloat16 x) {
  const uint32_t b = static_cast<uint32_t>(x.bits) << 16;
  float value;
  std::memcpy(&value, &b, sizeof value);
  return value;
}

float round_to_bfloat16(float x) { return to_float(to_bfloat16(x)); }

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
