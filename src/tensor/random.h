// random.h — a seeded random-number generator whose whole state can be saved and restored.
//
// Every random choice attnlab makes (initial weights, dropout masks, batch shuffling) draws from a Generator
// created from the run's seed. Same seed → same numbers, on every machine: the normal distribution is computed
// here with the Box–Muller transform rather than by std::normal_distribution, whose algorithm the C++ standard
// leaves to each library. state() and set_state() let a checkpoint carry the generator, so a resumed run
// draws exactly the numbers an uninterrupted one would have.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "tensor/real.h"

namespace attnlab::inline ATTNLAB_PRECISION {

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
  std::mt19937_64 engine_;
  bool has_spare_normal_ = false;             // Box–Muller makes normals in pairs; keep the second
  double spare_normal_ = 0.0;
};

}  // namespace attnlab::inline ATTNLAB_PRECISION
