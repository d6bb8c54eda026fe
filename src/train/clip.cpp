// clip.cpp — the global gradient norm, and scaling every gradient by one factor.
//
// Both loops run over each parameter's gradient in chunks shared among the threads, and the scaling as a flat
// Eigen array (a view, no copy), which lets Eigen use SIMD; the plain loop each line stands for is in the comment
// beside it.
#include "train/clip.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "tensor/parallel.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {
using ArrayMap = Eigen::Map<Eigen::Array<real, Eigen::Dynamic, 1>>;
}  // namespace

double sum_of_squares(const std::vector<NamedParameter>& parameters, FlatRange range) {
  // ‖g‖² = Σ g², accumulated in double. The obvious loop adds every square in turn on one thread; here each
  // parameter's gradient is cut into fixed chunks of elementwise_chunk numbers (tensor/parallel.h), the threads
  // sum whole chunks, each in order into its own double, and the chunk sums are then added in chunk order — so the
  // result has the same bits on any number of threads (and is not Eigen's .sum(), whose order of additions
  // depends on how the buffer happens to be aligned). The list of chunks is kept from step to step: a warm
  // training step allocates nothing.
  struct Chunk {
    const real* g;
    int64_t n;
  };
  thread_local std::vector<Chunk> chunks;
  thread_local std::vector<double> chunk_sums;
  chunks.clear();
  int64_t numbers = 0;
  for (const ParameterPart& part : parts_in(parameters, range)) {
    const Tensor& tensor = parameters[part.parameter].tensor;
    if (!tensor.has_grad()) continue;  // no gradient counts as zeros
    const real* g = tensor.grad();
    for (int64_t begin = part.from; begin < part.to; begin += elementwise_chunk)
      chunks.push_back({g + begin, std::min(elementwise_chunk, part.to - begin)});
    numbers += part.to - part.from;
  }
  chunk_sums.assign(chunks.size(), 0.0);
  const int64_t count = static_cast<int64_t>(chunks.size());
  const Chunk* c = chunks.data();
  double* sums = chunk_sums.data();
#pragma omp parallel for schedule(static) if (worth_threads(numbers))
  for (int64_t i = 0; i < count; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < c[i].n; ++j) sum += static_cast<double>(c[i].g[j]) * static_cast<double>(c[i].g[j]);
    sums[i] = sum;
  }
  double sum_of_squares = 0;
  for (double sum : chunk_sums) sum_of_squares += sum;          // in chunk order
  return sum_of_squares;
}

void clip_to_norm(const std::vector<NamedParameter>& parameters, double norm, double max_norm, FlatRange range) {
  if (!std::isfinite(norm) || max_norm <= 0 || norm <= max_norm) return;
  // g ← g · max_norm / (‖g‖ + 10⁻⁶)
  const real scale = static_cast<real>(max_norm / (norm + 1e-6));
  for (const ParameterPart& part : parts_in(parameters, range)) {
    const Tensor& tensor = parameters[part.parameter].tensor;
    if (!tensor.has_grad()) continue;
    real* g = tensor.grad() + part.from;
    for_each_chunk(part.to - part.from, [g, scale](int64_t begin, int64_t end) {   // for (real& x : g) x *= scale;
      ArrayMap(g + begin, end - begin) *= scale;
    });
  }
}

double clip_grad_norm(const std::vector<NamedParameter>& parameters, double max_norm) {
  const double norm = std::sqrt(sum_of_squares(parameters));   // ‖g‖ = √(Σ g²)
  clip_to_norm(parameters, norm, max_norm);
  return norm;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
