// exercise.h — what the adam_step exercise asks for: exercise.cpp (yours) and answer.cpp define it, check.cpp
// checks it.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/real.h"

namespace attnlab::exercises {

struct AdamSettings {
  double lr = 1e-3;       // the learning rate of this step
  double beta1 = 0.9;     // β₁, the first moment's decay
  double beta2 = 0.98;    // β₂, the second moment's decay (the paper's; PyTorch's default is 0.999)
  double eps = 1e-9;      // ε
  double weight_decay = 0;  // λ: AdamW's decoupled weight decay, p ← p − lr·λ·p (0: plain Adam)
};

struct AdamState {
  std::vector<real> m;    // [n], the first moment; zeros before the first step
  std::vector<real> v;    // [n], the second moment; zeros before the first step
  int64_t t = 0;          // the steps taken so far
};

// One Adam step on a parameter of n numbers p [n] with gradient g [n]: updates p and state.
void adam_step(std::vector<real>& p, const std::vector<real>& g, AdamState& state, const AdamSettings& settings);

}  // namespace attnlab::exercises
