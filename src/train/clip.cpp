// clip.cpp — the global gradient norm, and scaling every gradient by one factor.
//
// Both loops run over each parameter's gradient as a flat Eigen array (a view, no copy), which lets Eigen
// use SIMD; the plain loop each line stands for is in the comment beside it.
#include "train/clip.h"

#include <Eigen/Core>
#include <cmath>

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {
using ArrayMap = Eigen::Map<Eigen::Array<real, Eigen::Dynamic, 1>>;
}  // namespace

double clip_grad_norm(const std::vector<NamedParameter>& parameters, double max_norm) {
  // ‖g‖² = Σ g², accumulated in double, in one fixed order. (Not Eigen's vectorised .sum(): its order of
  // additions depends on how the buffer happens to be aligned, so two identical runs could clip differently.)
  double sum_of_squares = 0;
  for (const NamedParameter& parameter : parameters) {
    if (!parameter.tensor.has_grad()) continue;  // no gradient counts as zeros
    for (real g : parameter.tensor.grad_values()) sum_of_squares += static_cast<double>(g) * static_cast<double>(g);
  }
  const double norm = std::sqrt(sum_of_squares);

  if (!std::isfinite(norm) || max_norm <= 0 || norm <= max_norm) return norm;

  // g ← g · max_norm / (‖g‖ + 10⁻⁶)
  const real scale = static_cast<real>(max_norm / (norm + 1e-6));
  for (const NamedParameter& parameter : parameters) {
    if (!parameter.tensor.has_grad()) continue;
    ArrayMap g(parameter.tensor.grad(), parameter.tensor.numel());
    g *= scale;  // for (real& x : g) x *= scale;
  }
  return norm;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
