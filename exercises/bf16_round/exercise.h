// exercise.h — what the bf16_round exercise asks for: exercise.cpp (yours) and answer.cpp define it, check.cpp
// checks it.
#pragma once

#include <cstdint>

namespace attnlab::exercises {

// A float32, given by its 32 bits b (sign, 8 exponent bits, 23 mantissa bits), rounded to bfloat16 → its 16 bits:
// the upper half of b, rounded to nearest on the 16 bits cut off, ties to even; a NaN stays a NaN with its sign.
// src/tensor/bfloat16.h is the library's (to_bfloat16).
uint16_t round_to_bfloat16_bits(uint32_t b);

}  // namespace attnlab::exercises
