// linear.cpp — y = x Wᵀ + b: one matmul (x seen as [rows, in]) and a broadcast add of the bias.
// The fused path runs both as one op, kernels/fused_linear.cpp.
#include "nn/linear.h"

#include <cmath>

#include "autograd/ops.h"
#include "kernels/kernels.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

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
  if (!fused()) {
    Tensor y = matmul(x, weight, /*transpose_a=*/false, /*transpose_b=*/true);  // [..., out] = x · Wᵀ
    return bias.defined() ? add(y, bias) : y;                            // [..., out] + b, b broadcast to every row
  }
  return linear(x, weight, bias, gemm(), precision());                         // the same as one op (kernels/fused_linear.cpp)
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
