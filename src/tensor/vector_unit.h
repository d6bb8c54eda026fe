// vector_unit.h — which vector instructions this build computes with, said for people: "AVX-512, 16 floats a
// vector". `attnlab --version` prints it.
//
// Why a learner meets it: the kernels of row_math.h and the matrix products add a row's numbers in packets of this
// width, so a build for another width adds the same floats in another order and rounds differently in the last
// bits. One step is the same to 6 digits; a model trained for 1000 steps from the same seed is a slightly different
// model (docs/course/08-decode.md shows one: 98.72 BLEU with AVX-512, 97.93 with AVX2). The course's pages say
// which width their trained numbers come from, and the docs test compares those only on a build of that width.
#pragma once

#include <string>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// "AVX-512", "AVX2", "AVX", "SSE2", "NEON", "WebAssembly SIMD" (the browser build: "WebAssembly SIMD (Eigen's
// SSE code)", cmake/browser.cmake) or "none", then the numbers of `real` a vector
// holds: "AVX-512, 16 floats a vector".
std::string vector_unit();

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
