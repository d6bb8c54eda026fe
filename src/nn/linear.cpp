// linear.cpp — y = x Wᵀ + b as one matmul (x seen as [rows, in]) and a broadcast add.
#include "nn/linear.h"

#include <cmath>

#include "autograd/ops.h"
#include "tensor/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

Linear::Linear(int64_t in_features, int64_t out_features, Generator& init, bool use_bias) {
  if (in_features <= 0 || out_features <= 0) {
    throw Error("Linear: sizes must be positive, got in " + std::to_string(in_features) + ", out " +
                std::to_string(out_features));
  }
  real bound = static_cast<real>(1.0 / std::sqrt(static_cast<double>(in_features)));
  weight = register_parameter("weight", Tensor::uniform({out_features, in_features}, init, -bound, bound));
  if (use_bias) bias = register_parameter("bias", Tensor::uniform({out_features}, init, -bound, bound));
}

Tensor Linear::forward(const Tensor& x) const {
  return linear(x, weight, bias);   // [..., out] = x · Wᵀ + b, one op (src/autograd/ops/matmul.cpp)
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
