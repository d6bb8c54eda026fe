// random.h — a seeded random-number generator whose whole state can be saved and restored.
//
// Every random choice attnlab makes (initial weights, dropout masks, batch shuffling) draws from a Generator
// created from the run's seed. Same seed → same numbers, on every machine: the normal distribution is computed
// here with the Box–Muller transform rather than by std::normal_distribution, whose algorithm the C++ standard
// leaves to each library. state() and set_state() let a checkpoint carry the generator, so a resumed run
// draws exactly the numbers an uninterrupted one would have.
// The engine is the 64-bit Mersenne Twister, MT19937-64 — the numbers of std::mt19937_64, which the standard fixes
// bit for bit — written out here (random.cpp) rather than taken from the library, because the standard does not fix
// its state's TEXT: GCC's library writes the 312 words and a position, LLVM's (macOS, the browser build) the 312
// words rotated, and neither reads the other's. A checkpoint written by one must resume on the other.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// MT19937-64 (Matsumoto & Nishimura 1998; Nishimura 2000): 312 words of state, regenerated as a block, each draw
// one word tempered. Its state as text is the 312 words and the position of the next draw, as GCC's library
// writes std::mt19937_64, so the checkpoints written before this class existed still read.
class MersenneTwister64 {
 public:
  static constexpr int n = 312;
  explicit MersenneTwister64(uint64_t seed);
  uint64_t operator()();
  void write(std::ostream& out) const;       // "w_0 w_1 … w_311 position"
  bool read(std::istream& in);               // false (and no change) when `in` does not hold a state

 private:
  void regenerate();
  uint64_t words_[n];
  int position_ = n;
};

class Generator {
 public:
  explicit Generator(uint64_t seed = 0) : engine_(seed) {}

  double uniform();                           // in [0, 1), 53 random bits
  double uniform(double low, double high);    // in [low, high)
  double normal(double mean = 0.0, double stddev = 1.0);
  uint64_t next_u64() { return engine_(); }
  int64_t integer(int64_t low, int64_t high); // uniform in [low, high)

  std::string state() const;                  // text form of the whole state
  void set_state(const std::string& text);    // throws attnlab::Error on text that is not a state

 private:
  MersenneTwister64 engine_;
  bool has_spare_normal_ = false;             // Box–Muller makes normals in pairs; keep the second
  double spare_normal_ = 0.0;
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
