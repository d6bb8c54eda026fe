// clip.cpp — the global gradient norm, and scaling every gradient by one factor.
//
// Both loops run over the same list of chunks of the gradients, shared among the threads in one parallel loop:
// the sum of squares in eight running sums per chunk, the scaling as a flat Eigen array (a view, no copy), which
// lets Eigen use SIMD; the plain loop each line stands for is in the comment beside it.
#include "train/clip.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "tensor/parallel.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {
using ArrayMap = Eigen::Map<Eigen::Array<real, Eigen::Dynamic, 1>>;

// The gradients in `range`, cut into chunks of at most elementwise_chunk numbers (tensor/parallel.h) that never
// span two parameters: the work both loops below share among the threads, fixed by the sizes alone. The list is
// kept from step to step (a warm training step allocates nothing). Parameters without a gradient are left out.
struct Chunk {
  real* g;          // [n]
  int64_t n;
};
const std::vector<Chunk>& gradient_chunks(const std::vector<NamedParameter>& parameters, FlatRange range,
                                          int64_t& numbers) {
  thread_local std::vector<Chunk> chunks;
  chunks.clear();
  numbers = 0;
  for (const ParameterPart& part : parts_in(parameters, range)) {
    const Tensor& tensor = parameters[part.parameter].tensor;
    if (!tensor.has_grad()) continue;  // no gradient counts as zeros
    real* g = tensor.grad();
    for (int64_t begin = part.from; begin < part.to; begin += elementwise_chunk)
      chunks.push_back({g + begin, std::min(elementwise_chunk, part.to - begin)});
    numbers += part.to - part.from;
  }
  return chunks;
}

// Σ g² over one chunk, in double, in a fixed order: lane l sums the squares j ≡ l (mod 8), and the 8 lanes are
// added pairwise at the end. The obvious loop (sum += g[j]·g[j]) has one running sum, which waits for the
// previous addition at every number (a few cycles each: 0.7 ms for the small model's million gradients); eight
// independent sums are one vector addition per 8 numbers.
double chunk_sum_of_squares(const real* g, int64_t n) {
  constexpr int lanes = 8;
  double lane[lanes] = {};
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    for (int l = 0; l < lanes; ++l) lane[l] += static_cast<double>(g[j + l]) * static_cast<double>(g[j + l]);
  }
  for (int l = 0; j < n; ++j, ++l) lane[l] += static_cast<double>(g[j]) * static_cast<double>(g[j]);
  for (int width = lanes / 2; width >= 1; width /= 2) {
    for (int l = 0; l < width; ++l) lane[l] += lane[l + width];          // 8 → 4 → 2 → 1
  }
  return lane[0];
}

}  // namespace

double sum_of_squares(const std::vector<NamedParameter>& parameters, FlatRange range) {
  // ‖g‖² = Σ g², accumulated in double. The obvious loop adds every square in turn on one thread; here the
  // threads sum whole chunks (gradient_chunks), each into its own double, and the chunk sums are then added in
  // chunk order — so the result has the same bits on any number of threads (and is not Eigen's .sum(), whose
  // order of additions depends on how the buffer happens to be aligned).
  int64_t numbers = 0;
  const std::vector<Chunk>& chunks = gradient_chunks(parameters, range, numbers);
  thread_local std::vector<double> chunk_sums;
  chunk_sums.assign(chunks.size(), 0.0);
  const int64_t count = static_cast<int64_t>(chunks.size());
  const Chunk* c = chunks.data();
  double* sums = chunk_sums.data();
  parallel_for(count, worth_threads(numbers), [=](int64_t i) { sums[i] = chunk_sum_of_squares(c[i].g, c[i].n); });
  double sum_of_squares = 0;
  for (double sum : chunk_sums) sum_of_squares += sum;          // in chunk order
  return sum_of_squares;
}

void clip_to_norm(const std::vector<NamedParameter>& parameters, double norm, double max_norm, FlatRange range) {
  if (!std::isfinite(norm) || max_norm <= 0 || norm <= max_norm) return;
  // g ← g · max_norm / (‖g‖ + 10⁻⁶), over the same chunks in one parallel loop (one loop per parameter would
  // leave every parameter of less than two chunks, the biases and norms, on one thread, each its own region)
  const real scale = static_cast<real>(max_norm / (norm + 1e-6));
  int64_t numbers = 0;
  const std::vector<Chunk>& chunks = gradient_chunks(parameters, range, numbers);
  const Chunk* c = chunks.data();
  parallel_for(static_cast<int64_t>(chunks.size()), worth_threads(numbers), [=](int64_t i) {
    ArrayMap(c[i].g, c[i].n) *= scale;                                   // for (real& x : g) x *= scale;
  });
}

double clip_grad_norm(const std::vector<NamedParameter>& parameters, double max_norm) {
  const double norm = std::sqrt(sum_of_squares(parameters));   // ‖g‖ = √(Σ g²)
  clip_to_norm(parameters, norm, max_norm);
  return norm;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
