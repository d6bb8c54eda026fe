// exercise.h — what the split_heads exercise asks for: exercise.cpp (yours) and answer.cpp define them, check.cpp
// checks them against the library's (attention/attention.h, which has functions of the same names in namespace
// attnlab: call those as attnlab::split_heads).
#pragma once

#include <cstdint>

#include "tensor/tensor.h"

namespace attnlab::exercises {

// x [B, T, d_model] → [B, h, T, d_k], d_k = d_model / h: head h gets the features [h·d_k, (h + 1)·d_k).
Tensor split_heads(const Tensor& x, int64_t heads);
// The inverse: x [B, h, T, d_k] → [B, T, h·d_k], the heads' features side by side again.
Tensor merge_heads(const Tensor& x);

}  // namespace attnlab::exercises
