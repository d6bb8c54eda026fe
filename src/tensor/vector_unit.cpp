// vector_unit.cpp — the vector instructions Eigen compiled this build for (vector_unit.h): its EIGEN_VECTORIZE_*
// macros say which, and packet_traits the numbers of `real` in one vector.
#include "tensor/vector_unit.h"

#include <Eigen/Core>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::string vector_unit() {
#if defined(__wasm_simd128__) && defined(EIGEN_VECTORIZE_SSE2)  // the browser build: SSE translated (browser.cmake)
  const std::string name = "WebAssembly SIMD (Eigen's SSE code)";
#elif defined(EIGEN_VECTORIZE_AVX512)
  const std::string name = "AVX-512";
#elif defined(EIGEN_VECTORIZE_AVX2)
  const std::string name = "AVX2";
#elif defined(EIGEN_VECTORIZE_AVX)
  const std::string name = "AVX";
#elif defined(EIGEN_VECTORIZE_SSE2)
  const std::string name = "SSE2";
#elif defined(EIGEN_VECTORIZE_NEON)
  const std::string name = "NEON";
#elif defined(EIGEN_VECTORIZE_WASM)
  const std::string name = "WebAssembly SIMD";
#else
  const std::string name = "none";
#endif
  const int lanes = Eigen::internal::packet_traits<real>::size;  // numbers of `real` in one vector
  const std::string number = sizeof(real) == 4 ? "float" : "double";
  return name + ", " + std::to_string(lanes) + " " + number + (lanes == 1 ? "" : "s") + " a vector";
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
