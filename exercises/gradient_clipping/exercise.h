// exercise.h — what the gradient_clipping exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include <vector>

#include "tensor/real.h"

namespace attnlab::exercises {

// gradients[k] is the gradient of parameter k, its numbers laid flat ([n_k]). When the global norm ‖g‖ — over
// every number of every parameter — exceeds max_norm (> 0), scales all of them in place by one factor so that ‖g‖
// becomes max_norm (less 10⁻⁶); returns ‖g‖ as it was before clipping.
double clip_by_global_norm(std::vector<std::vector<real>>& gradients, double max_norm);

}  // namespace attnlab::exercises
