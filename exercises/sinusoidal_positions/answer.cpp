// answer.cpp — the project's answer to the sinusoidal_positions exercise. Try exercise.cpp first.
//
// The frequency of pair i is 1 / 10000^(2i/d_model) = exp(−2i · ln(10000) / d_model); the library computes it
// that way (src/nn/embedding.cpp, sinusoidal_table), the same number to rounding as std::pow.
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

Tensor sinusoidal_positions(int64_t length, int64_t d_model) {
  Tensor table = Tensor::zeros({length, d_model});                   // [T, d_model]
  for (int64_t t = 0; t < length; ++t) {
    for (int64_t i = 0; 2 * i < d_model; ++i) {
      const double frequency = 1.0 / std::pow(10000.0, static_cast<double>(2 * i) / static_cast<double>(d_model));
      table.data()[t * d_model + 2 * i] = std::sin(static_cast<double>(t) * frequency);       // P[t, 2i]
      table.data()[t * d_model + 2 * i + 1] = std::cos(static_cast<double>(t) * frequency);   // P[t, 2i + 1]
    }
  }
  return table;
}

}  // namespace attnlab::exercises
