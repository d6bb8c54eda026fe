// real.h — the engine's scalar type, chosen when the library is compiled.
//
// attnlab is built twice from the same sources:
//   * float32 (`real = float`), the precision the trainer runs in, and
//   * float64 (`real = double`, with -DATTNLAB_DOUBLE), the precision the gradient checks run in:
//     a central difference (f(x+h) - f(x-h)) / 2h loses about half the digits of `real`, so in float32 it
//     can only promise ~3 correct digits while in float64 it promises ~8, and the tolerance can be tight.
//
// The two builds live in different inline namespaces (attnlab::f32 and attnlab::f64). Code inside the library
// just writes `attnlab::Tensor`; a program that needs both (the `attnlab gradcheck` command) can link both
// without their symbols colliding. This is the only macro the engine uses.
#pragma once

#ifdef ATTNLAB_DOUBLE
#define ATTNLAB_PRECISION f64
#else
#define ATTNLAB_PRECISION f32
#endif

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
#ifdef ATTNLAB_DOUBLE
using real = double;
#else
using real = float;
#endif
}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
