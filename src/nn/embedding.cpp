// embedding.cpp — token lookup scaled by √d_model, and the three kinds of positional encoding.
#include "nn/embedding.h"

#include <cmath>
#include <vector>

#include "autograd/ops.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

Embedding::Embedding(int64_t vocab_size, int64_t d_model, Generator& init) {
  // N(0, d_model^-1/2): after the √d_model scale the embeddings have unit-sized entries.
  weight = register_parameter("weight", Tensor::randn({vocab_size, d_model}, init,
                                                      static_cast<real>(1.0 / std::sqrt(double(d_model)))));
}

Tensor Embedding::forward(const TokenIds& ids) const {
  const real scale_factor = static_cast<real>(std::sqrt(static_cast<double>(weight.size(1))));
  return scale(embedding(weight, ids), scale_factor);                      // [B, T, d_model]
}

const std::vector<std::string>& choice_names(PositionalKind) {
  static const std::vector<std::string> names{"sinusoidal", "learned", "none"};
  return names;
}

PositionalEncoding::PositionalEncoding(PositionalKind k, int64_t d_model, int64_t max_len, Generator& init)
    : kind(k), d_model_(d_model), max_len_(max_len) {
  if (kind == PositionalKind::learned) {
    weight = register_parameter("weight", Tensor::randn({max_len, d_model}, init, real(0.02)));
  }
}

Tensor PositionalEncoding::sinusoidal_table(int64_t length, int64_t d_model, int64_t start) {
  // PE(t, 2i) = sin(t / 10000^(2i/d_model)),  PE(t, 2i + 1) = cos(t / 10000^(2i/d_model))
  Tensor table = Tensor::zeros({length, d_model});                         // [T, d_model]
  const double log_base = std::log(10000.0);
  std::vector<double> frequencies;                                         // [d_model / 2]: 10000^(−2i/d_model)
  for (int64_t i = 0; 2 * i < d_model; ++i) {
    frequencies.push_back(std::exp(-static_cast<double>(2 * i) * log_base / static_cast<double>(d_model)));
  }
  for (int64_t row = 0; row < length; ++row) {
    const int64_t t = start + row;                                         // the position this row encodes
    for (int64_t i = 0; 2 * i < d_model; ++i) {
      const double frequency = frequencies[static_cast<size_t>(i)];
      table.data()[row * d_model + 2 * i] = static_cast<real>(std::sin(t * frequency));
      if (2 * i + 1 < d_model) table.data()[row * d_model + 2 * i + 1] = static_cast<real>(std::cos(t * frequency));
    }
  }
  return table;
}

Tensor PositionalEncoding::forward(const Tensor& x) const { return forward(x, 0); }

Tensor PositionalEncoding::forward(const Tensor& x, int64_t start) const {
  const int64_t T = x.size(1);
  switch (kind) {
    case PositionalKind::none:
      return x;
    case PositionalKind::sinusoidal:
      return add(x, sinusoidal_table(T, d_model_, start));                   // [B, T, d] + [T, d]
    case PositionalKind::learned:
      if (start + T > max_len_) {
        throw Error("a sequence of " + std::to_string(start + T) + " tokens is longer than the learned positional "
                    "table (" + std::to_string(max_len_) + " positions): raise model.max_len or use sinusoidal positions");
      }
      return add(x, slice(weight, 0, start, start + T));                     // [B, T, d] + [T, d]
  }
  return x;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
