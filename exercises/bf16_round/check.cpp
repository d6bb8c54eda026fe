// check.cpp — bf16_round against the library's rounding, to_bfloat16 (src/tensor/bfloat16.h), bit for bit.
//
// First on hand-picked floats, each named for what it tests (ties both ways, a carry into the exponent, the largest
// finite float and overflow, subnormals, negative numbers, NaNs); a learner's bits that are what a usual mistake
// gives on all of them (truncation, ties away from zero, …) are named. Then on a million random floats, half of
// them with the lower 16 bits at or around the halfway point 0x8000, where rounding decides. A NaN passes as any
// NaN of the same sign (the library's sets the quiet bit; another NaN is as good).
#include "check.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "exercise.h"
#include "tensor/bfloat16.h"

namespace attnlab::exercises {
namespace {

struct Case {
  const char* what;
  uint32_t bits;
};

const std::vector<Case> hand_picked = {
    {"1: exact, nothing cut off", 0x3F800000},
    {"pi: cut off 0x0FDB, below half: down", 0x40490FDB},
    {"0.1: cut off 0xCCCD, above half: up", 0x3DCCCCCD},
    {"1 + 2^-8: a tie, last kept bit 0: stays (even)", 0x3F808000},
    {"1 + 3 * 2^-8: a tie, last kept bit 1: up to even", 0x3F818000},
    {"-(1 + 2^-8): a negative tie, stays", 0xBF808000},
    {"-(1 + 3 * 2^-8): a negative tie, up in magnitude", 0xBF818000},
    {"-1000.7: negative, above half", 0xC47A2CCD},
    {"1.99999988: up, the carry steps the exponent to 2", 0x3FFFFFFF},
    {"a tie below 2 with last kept bit 1: up to 2", 0x3FFF8000},
    {"the largest bfloat16, exactly", 0x7F7F0000},
    {"just below half past the largest bfloat16: stays finite", 0x7F7F7FFF},
    {"a tie past the largest bfloat16: up to inf (overflow)", 0x7F7F8000},
    {"the largest finite float32: overflows to inf", 0x7F7FFFFF},
    {"minus the largest finite float32: to -inf", 0xFF7FFFFF},
    {"inf", 0x7F800000},
    {"-inf", 0xFF800000},
    {"+0", 0x00000000},
    {"-0", 0x80000000},
    {"the smallest subnormal: down to 0", 0x00000001},
    {"a subnormal tie, last kept bit 0: stays", 0x00008000},
    {"a subnormal tie, last kept bit 1: up", 0x00018000},
    {"a negative subnormal, above half", 0x8000C000},
    {"the largest subnormal: up to the smallest normal", 0x007FFFFF},
    {"a quiet NaN", 0x7FC00000},
    {"a NaN whose mantissa is all in the cut-off bits", 0x7F800001},
    {"a negative NaN, all ones", 0xFFFFFFFF},
    {"a negative NaN whose mantissa is all in the cut-off bits", 0xFF800001},
};

float float_of(uint32_t b) {
  return std::bit_cast<float>(b);
}

bool is_nan_bits(uint32_t b) {
  return (b & 0x7F800000u) == 0x7F800000u && (b & 0x007FFFFFu) != 0;
}
bool is_nan_half(uint16_t h) {
  return is_nan_bits(static_cast<uint32_t>(h) << 16);
}

// Two roundings of the float b agree: the same bits, or for a NaN, both NaNs with the same sign.
bool agree(uint32_t b, uint16_t one, uint16_t other) {
  if (one == other) return true;
  return is_nan_bits(b) && is_nan_half(one) && is_nan_half(other) && (one >> 15) == (other >> 15);
}

std::string hex(uint32_t value, int digits) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%0*X", digits, value);
  return text;
}

std::string binary(uint32_t b, int n) {
  std::string text;
  for (int i = n - 1; i >= 0; --i) text += ((b >> i) & 1u) ? '1' : '0';
  return text;
}

// A float in full (9 significant digits: every float32 and bfloat16 reads back exactly), "inf", "nan".
std::string value(float x) {
  if (std::isnan(x)) return std::signbit(x) ? "-nan" : "nan";
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", static_cast<double>(x));
  return text;
}

std::string half(uint16_t h) {
  return hex(h, 4) + " = " + value(to_float(bfloat16{h}));
}

// The float, its fields with the cut marked, the library's bfloat16 and yours.
std::vector<std::string> case_lines(const std::string& what, uint32_t b, uint16_t yours) {
  return {what, "float32  " + hex(b, 8) + " = " + value(float_of(b)),
          "  sign " + std::to_string(b >> 31) + "  exponent " + binary(b >> 23, 8) + "  mantissa " +
              binary(b >> 16, 7) + " | " + binary(b & 0xFFFFu, 16) + "   (kept | cut off)",
          "expected " + half(to_bfloat16(float_of(b)).bits), "yours    " + half(yours)};
}

const std::string hint =
    "keep upper = b >> 16 and look at cut = b & 0xFFFF: below 0x8000 keep upper, above it upper + 1, exactly 0x8000 "
    "the one of upper and upper + 1 whose last bit is 0; a NaN returns a NaN with its sign. The rule and its one "
    "sum are in the opening comment of src/tensor/bfloat16.h.";

// What the usual mistakes give (their names are those of mistakes.txt).
struct Mistake16 {
  const char* name;
  const char* what;
  uint16_t (*gives)(uint32_t b);
  const char* fix;
};

uint16_t nan_or(uint32_t b, bool up) {
  if (is_nan_bits(b)) return static_cast<uint16_t>((b >> 16) | 0x0040u);
  return static_cast<uint16_t>((b >> 16) + (up ? 1u : 0u));
}

const std::vector<Mistake16> usual_mistakes = {
    {"truncate", "yours cuts the lower 16 bits off: rounding toward zero", [](uint32_t b) { return nan_or(b, false); },
     "cutting errs by up to a whole last bit; rounding to nearest errs by half of it at most. Add 1 to the upper "
     "half when the cut-off bits are above 0x8000 (and on a tie, when that makes the last bit 0)."},
    {"ties_away", "yours rounds a tie away from zero (cut ≥ 0x8000: up)",
     [](uint32_t b) { return nan_or(b, (b & 0xFFFFu) >= 0x8000u); },
     "a tie (cut = 0x8000 exactly) goes to the even neighbour, the one whose last kept bit is 0: up only when the "
     "last kept bit is 1. Always up biases every sum of ties upward in magnitude."},
    {"ties_toward_zero", "yours rounds a tie toward zero (cut > 0x8000 only: up)",
     [](uint32_t b) { return nan_or(b, (b & 0xFFFFu) > 0x8000u); },
     "a tie (cut = 0x8000 exactly) goes to the even neighbour: up when the last kept bit, (b >> 16) & 1, is 1."},
    {"ties_to_odd", "yours rounds a tie to the odd neighbour",
     [](uint32_t b) {
       const uint32_t cut = b & 0xFFFFu;
       return nan_or(b, cut > 0x8000u || (cut == 0x8000u && ((b >> 16) & 1u) == 0));
     },
     "the test of the last kept bit is the wrong way round: on a tie, go up when that bit is 1 (so it becomes 0)."},
    {"nan_not_kept", "a NaN is not kept a NaN",
     [](uint32_t b) {
       const uint32_t cut = b & 0xFFFFu;
       return static_cast<uint16_t>((b >> 16) + ((cut > 0x8000u || (cut == 0x8000u && ((b >> 16) & 1u))) ? 1u : 0u));
     },
     "a NaN (exponent 0xFF, mantissa not 0) whose mantissa is all in the cut-off bits rounds to inf, and 0xFFFFFFFF "
     "wraps around to +0: test for a NaN first and return (b >> 16) | 0x0040 (its sign, the quiet bit set)."},
};

// Yours on the hand-picked floats: the shipped stub, a usual mistake, or the first that differs.
void check_hand_picked() {
  std::vector<uint16_t> yours;
  bool all_zero = true;
  for (const Case& c : hand_picked) {
    yours.push_back(round_to_bfloat16_bits(c.bits));
    all_zero = all_zero && yours.back() == 0;
  }
  if (all_zero) {
    fail("round_to_bfloat16_bits returns 0 for every float", case_lines(hand_picked[1].what, hand_picked[1].bits, 0),
         "that is the shipped stub: fill in the TODO in exercises/bf16_round/exercise.cpp. Then: " + hint);
  }
  size_t wrong = hand_picked.size();
  for (size_t i = 0; i < hand_picked.size() && wrong == hand_picked.size(); ++i) {
    if (!agree(hand_picked[i].bits, to_bfloat16(float_of(hand_picked[i].bits)).bits, yours[i])) wrong = i;
  }
  if (wrong == hand_picked.size()) return;
  for (const Mistake16& m : usual_mistakes) {
    bool same = true;
    for (size_t i = 0; i < hand_picked.size(); ++i)
      same = same && agree(hand_picked[i].bits, m.gives(hand_picked[i].bits), yours[i]);
    if (same) fail(m.what, case_lines(hand_picked[wrong].what, hand_picked[wrong].bits, yours[wrong]), m.fix, m.name);
  }
  fail("your bfloat16 differs from the library's",
       case_lines(hand_picked[wrong].what, hand_picked[wrong].bits, yours[wrong]), hint);
}

// A million random floats (a fixed sequence): every other one with its lower half at 0x7FFF, 0x8000 or 0x8001.
void check_random() {
  uint32_t state = 2024;
  for (int i = 0; i < 1000000; ++i) {
    state = state * 1664525u + 1013904223u;  // a fixed linear congruential sequence
    uint32_t b = state;
    if (i % 2 == 1) b = (b & 0xFFFF0000u) | (0x7FFFu + static_cast<uint32_t>(i / 2 % 3));
    const uint16_t yours = round_to_bfloat16_bits(b);
    if (!agree(b, to_bfloat16(float_of(b)).bits, yours)) {
      fail("your bfloat16 differs from the library's on a random float (number " + std::to_string(i) + ")",
           case_lines("a random float", b, yours), hint);
    }
  }
}

void check() {
  check_hand_picked();
  check_random();
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("bf16_round", attnlab::exercises::hint, attnlab::exercises::check);
}
