// exercise.h — what the additive_score exercise asks for: exercise.cpp (yours) and answer.cpp define it,
// check.cpp checks it.
#pragma once

#include "tensor/tensor.h"

namespace attnlab::exercises {

// One head h of the library's additive attention (src/attention/additive.cpp), its parameters named as there:
struct AdditiveHead {
  Tensor W_q;  // [d_k, d_model]  rows h·d_k … (h+1)·d_k − 1 of q_proj.weight
  Tensor b_q;  // [d_k]           the same rows of q_proj.bias
  Tensor W_k;  // [d_k, d_model]  those rows of k_proj.weight
  Tensor b_k;  // [d_k]           … of k_proj.bias
  Tensor w;    // [d_k]           row h of score_proj.weight: Bahdanau's v
};

// x [Tq, d_model] (the queries' sequence), memory [Tk, d_model] (the keys') → e [Tq, Tk]:
// e_ij = wᵀ tanh(q_i + k_j), q_i = W_q x_i + b_q, k_j = W_k m_j + b_k.
Tensor additive_score(const Tensor& x, const Tensor& memory, const AdditiveHead& head);

}  // namespace attnlab::exercises
