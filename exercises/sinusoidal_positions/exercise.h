// exercise.h — what the sinusoidal_positions exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace attnlab::exercises {

// The positional encodings of positions 0 … length − 1: [length, d_model] (d_model even).
Tensor sinusoidal_positions(int64_t length, int64_t d_model);

}  // namespace attnlab::exercises
