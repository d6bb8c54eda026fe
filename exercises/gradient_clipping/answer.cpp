// answer.cpp — the project's answer to the gradient_clipping exercise. Try exercise.cpp first.
//
// The norm of all the gradients together, then one factor for all of them. The library's clip_grad_norm
// (src/train/clip.cpp) does the same over the parameters' gradient buffers, summing the squares in a fixed order
// on every thread so that the norm has the same bits on any number of threads.
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

namespace {

// Σ g² over every number of every gradient: ‖g‖².
double sum_of_squares(const std::vector<std::vector<real>>& gradients) {
  double sum = 0;
  for (const std::vector<real>& g : gradients) {
    for (real x : g) sum += static_cast<double>(x) * static_cast<double>(x);
  }
  return sum;
}

}  // namespace

double clip_by_global_norm(std::vector<std::vector<real>>& gradients, double max_norm) {
  const double norm = std::sqrt(sum_of_squares(gradients));          // ‖g‖ of all the parameters together
  if (norm <= max_norm) return norm;                                 // short enough: nothing changes
  const double scale = max_norm / (norm + 1e-6);                     // one factor for every parameter
  for (std::vector<real>& g : gradients) {
    for (real& x : g) x = static_cast<real>(x * scale);
  }
  return norm;                                                       // ‖g‖ before clipping, for the log
}

}  // namespace attnlab::exercises
