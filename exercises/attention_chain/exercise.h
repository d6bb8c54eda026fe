// exercise.h — what the attention_chain exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include "tensor/tensor.h"

namespace attnlab::exercises {

// Q [B, h, Tq, d_k], K [B, h, Tk, d_k], V [B, h, Tk, d_v], mask [B, 1, Tq, Tk] (0 or −∞) → [B, h, Tq, d_v].
Tensor scaled_dot_product_attention(const Tensor& Q, const Tensor& K, const Tensor& V, const Tensor& mask);

}  // namespace attnlab::exercises
