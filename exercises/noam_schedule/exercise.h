// exercise.h — what the noam_schedule exercise asks for: exercise.cpp (yours) and answer.cpp define it, check.cpp
// checks it.
#pragma once

#include <cstdint>

namespace attnlab::exercises {

// The learning rate of "Attention Is All You Need" (§5.3) at optimizer step `step` (1 for the first step):
// factor · d_model^−½ · min(step^−½, step · warmup^−³ᐟ²). warmup ≥ 0 steps (0: no warm-up), d_model ≥ 1.
double noam_learning_rate(double factor, int64_t d_model, int64_t warmup, int64_t step);

}  // namespace attnlab::exercises
