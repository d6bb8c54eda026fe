// random.cpp — uniform and normal numbers from a 64-bit Mersenne Twister.
//
// Box–Muller: if u1, u2 are uniform in (0, 1], then
//     z0 = sqrt(-2 ln u1) · cos(2π u2),   z1 = sqrt(-2 ln u1) · sin(2π u2)
// are two independent standard normals.
#include "tensor/random.h"

#include <cmath>
#include <numbers>
#include <sstream>

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// ---- MT19937-64 (random.h) ----
// x_{k+n} = x_{k+m} ⊕ A((x_k upper 33 bits) | (x_{k+1} lower 31 bits)), with A(y) = y >> 1, ⊕ a when y is odd;
// then each output word is tempered (the shifts and masks of operator()) to spread its bits.
namespace {
constexpr int mt_m = 156;
constexpr uint64_t mt_a = 0xB5026F5AA96619E9ULL, mt_upper = ~uint64_t{0} << 31, mt_lower = ~mt_upper;
}  // namespace

MersenneTwister64::MersenneTwister64(uint64_t seed) {
  words_[0] = seed;
  for (int i = 1; i < n; ++i) words_[i] = 6364136223846793005ULL * (words_[i - 1] ^ (words_[i - 1] >> 62)) + i;
}

void MersenneTwister64::regenerate() {
  for (int k = 0; k < n; ++k) {
    const uint64_t y = (words_[k] & mt_upper) | (words_[(k + 1) % n] & mt_lower);
    words_[k] = words_[(k + mt_m) % n] ^ (y >> 1) ^ ((y & 1) ? mt_a : 0);
  }
  position_ = 0;
}

uint64_t MersenneTwister64::operator()() {
  if (position_ >= n) regenerate();
  uint64_t z = words_[position_++];
  z ^= (z >> 29) & 0x5555555555555555ULL;
  z ^= (z << 17) & 0x71D67FFFEDA60000ULL;
  z ^= (z << 37) & 0xFFF7EEE000000000ULL;
  return z ^ (z >> 43);
}

void MersenneTwister64::write(std::ostream& out) const {
  for (uint64_t word : words_) out << word << ' ';
  out << position_;
}

bool MersenneTwister64::read(std::istream& in) {
  MersenneTwister64 read(0);
  for (uint64_t& word : read.words_) in >> word;
  in >> read.position_;
  if (in.fail() || read.position_ < 0 || read.position_ > n) return false;
  *this = read;
  return true;
}

// ---- Generator ----

double Generator::uniform() {
  // The top 53 bits of a 64-bit draw fill a double's mantissa exactly.
  return static_cast<double>(engine_() >> 11) * 0x1.0p-53;
}

double Generator::uniform(double low, double high) {
  return low + (high - low) * uniform();
}

double Generator::normal(double mean, double stddev) {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return mean + stddev * spare_normal_;
  }
  double u1 = 1.0 - uniform();  // in (0, 1], so log(u1) is finite
  double u2 = uniform();
  double radius = std::sqrt(-2.0 * std::log(u1));
  double angle = 2.0 * std::numbers::pi * u2;
  spare_normal_ = radius * std::sin(angle);
  has_spare_normal_ = true;
  return mean + stddev * radius * std::cos(angle);
}

int64_t Generator::integer(int64_t low, int64_t high) {
  if (high <= low)
    throw Error("Generator::integer: empty range [" + std::to_string(low) + ", " + std::to_string(high) + ")");
  uint64_t span = static_cast<uint64_t>(high - low);
  // Rejection sampling keeps every value equally likely (a plain modulo would favour small ones).
  uint64_t limit = UINT64_MAX - UINT64_MAX % span;
  uint64_t draw;
  do {
    draw = engine_();
  } while (draw >= limit);
  return low + static_cast<int64_t>(draw % span);
}

std::string Generator::state() const {
  std::ostringstream out;
  engine_.write(out);
  out << ' ' << (has_spare_normal_ ? 1 : 0) << ' ';
  out.precision(17);
  out << spare_normal_;
  return out.str();
}

void Generator::set_state(const std::string& text) {
  std::istringstream in(text);
  // A stream catches what is thrown while it reads a number and only sets badbit; so that running out of memory
  // ends in std::bad_alloc and not in "not a random-generator state" (tests/run/alloc_failure/), badbit rethrows.
  in.exceptions(std::ios::badbit);
  MersenneTwister64 engine(0);
  int has_spare = 0;
  double spare = 0.0;
  const bool engine_read = engine.read(in);
  in >> has_spare >> spare;
  const bool complete = engine_read && !in.fail();
  std::string stray;
  // state() writes the engine's 312 words and its position, 0 or 1 for a kept normal, and that normal; anything
  // else (a cut, a stray word, a NaN) would draw numbers no uninterrupted run draws.
  if (!complete || (in >> stray) || (has_spare != 0 && has_spare != 1) || !std::isfinite(spare)) {
    throw Error(
        "not a random-generator state attnlab wrote (313 whole numbers of the Mersenne Twister, then 0 or 1 "
        "and a number)");
  }
  engine_ = engine;
  has_spare_normal_ = has_spare != 0;
  spare_normal_ = spare;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
