// answer.cpp — the project's answer to the sinusoidal_positions exercise. Try exercise.cpp first.
//
// Column c belongs to pair i = c / 2: both columns of a pair share the angle t / 10000^(2i/d_model), the even one
// takes its sine and the odd one its cosine. The library (sinusoidal_table, src/nn/embedding.cpp) computes the
// frequency 1 / 10000^(2i/d_model) as exp(−2i · ln(10000) / d_model), once per pair: the same number to rounding.
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

Tensor sinusoidal_positions(int64_t length, int64_t d_model) {
  Tensor table = Tensor::zeros({length, d_model});                   // [T, d_model]
  for (int64_t t = 0; t < length; ++t) {
    for (int64_t c = 0; c < d_model; ++c) {
      const int64_t i = c / 2;                                       // the pair of column c
      const double wavelength = std::pow(10000.0, static_cast<double>(2 * i) / static_cast<double>(d_model));
      const double angle = static_cast<double>(t) / wavelength;      // t / 10000^(2i/d_model)
      table.data()[t * d_model + c] = c % 2 == 0 ? std::sin(angle) : std::cos(angle);   // P[t, 2i], P[t, 2i + 1]
    }
  }
  return table;
}

}  // namespace attnlab::exercises
