// parallel.cpp — how many threads the loops of parallel.h (and the products, product/product.cpp) share: the
// process-wide setting every command makes once, before its work (use_threads, parallel.h).
#include "tensor/parallel.h"

#include <omp.h>

#include <algorithm>
#include <thread>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

int use_threads(int64_t requested) {
  int threads = requested > 0 ? static_cast<int>(requested)
                              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  omp_set_num_threads(threads);                 // Eigen's GEMM stays on one thread: tensor/product/product.cpp shares
  return threads;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
