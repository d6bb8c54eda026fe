// linear.cpp — nn.Linear's y = x · Wᵀ + b as one op (kernels chapter).
//
// Replaces the chain   y = add(matmul(x, W, false, /*transpose_b=*/true), b)
// (src/nn/linear.cpp runs that chain on the paper's path, model.path: paper). What it saves: one [..., out] tensor per
// layer kept until backward, and one pass over the output (docs/guide/performance.md: base training peak RSS
// 850 → 712 MiB when this op came in). tests/autograd/test_ops_matmul_shape.cpp checks it against the chain.
#include <algorithm>
#include <string>
#include <vector>

#include "autograd/graph.h"
#include "kernels/kernels.h"
#include "tensor/parallel.h"
#include "tensor/product/product.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// ---- The Linear layer's op: y = x · Wᵀ + b in one node ----
//
// matmul followed by add would give the same numbers (to rounding), but would keep two [..., out] tensors alive
// until backward — the product and the sum — and walk the output twice. Here the output starts as b in every
// row and the product is added into it, so there is one tensor and one pass:
//     forward                                  backward (G = ∂L/∂y, rows i over every leading position)
//     y[i, j] = b[j] + Σ_p x[i, p] · W[j, p]   ∂x = G · W      ∂W = Gᵀ · x      ∂b[j] = Σ_i G[i, j]
// The reference is linear_reference-style code in tests/autograd/test_ops_matmul_shape.cpp: matmul(x, W, false, true)
// then add(·, b), which this must match.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias, Gemm gemm, Precision precision) {
  if (x.rank() < 1 || weight.rank() != 2 || x.size(-1) != weight.size(1)) {
    throw Error("linear: x " + x.shape().str() + " and weight " + weight.shape().str() +
                " do not fit: the weight must be [out, in] with in = x's last size");
  }
  const int64_t in = weight.size(1), out = weight.size(0), rows = x.numel() / std::max<int64_t>(in, 1);
  if (bias.defined() && (bias.rank() != 1 || bias.size(0) != out)) {
    throw Error("linear: bias " + bias.shape().str() + " must be [" + std::to_string(out) + "] for weight " +
                weight.shape().str());
  }
  std::vector<int64_t> out_sizes = x.shape().sizes();
  out_sizes.back() = out;
  Tensor y = bias.defined() ? Tensor::empty(Shape(out_sizes)) : Tensor::zeros(Shape(out_sizes));  // [..., out]
  MatrixMap Y(y.data(), rows, out);                                        // [rows, out]
  if (bias.defined()) {                                                    // y_i = b, rows on every thread
    const real* b = bias.data();                                           // when the product is (a copy is
    real* py = y.data();                                                   // too little work to wake them for)
    parallel_for(rows, worth_threads_for_products(rows * in * out),
                 [=](int64_t i) { std::copy(b, b + out, py + i * out); });
  }
  add_product(Y, ConstMatrixMap(x.data(), rows, in), false,               // x [rows, in]
              ConstMatrixMap(weight.data(), out, in), /*transpose_y=*/true,   // Wᵀ [in, out]
              gemm, precision);

  if (no_graph(y, "linear")) return y;  // no graph under NoGradGuard (graph.h)
  std::vector<Tensor> inputs{x, weight};
  if (bias.defined()) inputs.push_back(bias);
  record(y, "linear", std::move(inputs), [x, weight, bias, rows, in, out, gemm, precision](TensorNode& node) {
    ConstMatrixMap G(node.grad.data(), rows, out);                         // ∂y [rows, out]
    if (wants_grad(x)) {
      add_product(MatrixMap(x.grad(), rows, in), G, false,                  // ∂x [rows, in] += G · W
                  ConstMatrixMap(weight.data(), out, in), false, gemm, precision);
    }
    if (wants_grad(weight)) {
      add_product(MatrixMap(weight.grad(), out, in), G, /*transpose_x=*/true,  // ∂W [out, in] += Gᵀ · x
                  ConstMatrixMap(x.data(), rows, in), false, gemm, precision);
    }
    if (bias.defined() && wants_grad(bias)) {
      const real* g = node.grad.data();                                     // ∂b [out] += Σ_i G_i, in fixed
      add_column_sums(rows, out, [g](int64_t o) { return g[o]; }, bias.grad());  // chunks of rows (parallel.h)
    }
  });
  return y;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
