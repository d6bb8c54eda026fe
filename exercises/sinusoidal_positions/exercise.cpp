// Exercise sinusoidal_positions (chapter nn): the Transformer's sinusoidal positional encoding.
//
// Attention by itself does not know the order of the words: permute the keys and each query gets the same
// mix. So the model adds to each token's embedding a vector that says where it is (Vaswani et al. 2017, §3.5):
//
//   P[t, 2i]     = sin(t / 10000^(2i / d_model))
//   P[t, 2i + 1] = cos(t / 10000^(2i / d_model))            t = 0 … length − 1,  i = 0 … d_model/2 − 1
//
// Each pair of columns (2i, 2i + 1) is one wave; the wavelengths grow geometrically from 2π (i = 0) to almost
// 10000 · 2π. For any fixed offset k, P[t + k] is a linear function of P[t] (a rotation in each pair), which is
// what the paper hoped would let attention find relative positions.
//
// Shape: [length, d_model], row t is position t's vector; d_model is even. Element (t, c) is at
// table.data()[t * d_model + c]. Compute in double (std::sin, std::cos, std::pow or std::exp).
//
// Check:  tools/exercise.sh sinusoidal_positions
//   compares your table with the library's PositionalEncoding::sinusoidal_table (src/nn/embedding.cpp).
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

Tensor sinusoidal_positions(int64_t length, int64_t d_model) {
  Tensor table = Tensor::zeros({length, d_model});                   // [T, d_model]
  // TODO: fill row t with position t's encoding: sin in the even columns, cos in the odd ones.
  return table;
}

}  // namespace attnlab::exercises
