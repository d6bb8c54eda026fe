// checks/matmul.cpp — gradient checks for matmul: plain, all four transpose combinations, batched (3-D, 4-D),
// and a rank-2 B shared by every batch entry of A (the Linear layer, including its one-GEMM path).
// The case names use PyTorch's notation (A.T @ B) and stay ASCII, so that `attnlab gradcheck` prints an even table.
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A case: op(A) · op(B) with random normal A and B of the given (stored) shapes.
GradcheckCase product(std::string what, Shape a, Shape b, bool transpose_a, bool transpose_b) {
  return {"matmul", std::move(what),
          [a, b](Generator& gen) { return std::vector<Tensor>{Tensor::randn(a, gen), Tensor::randn(b, gen)}; },
          [transpose_a, transpose_b](const std::vector<Tensor>& in) {
            return matmul(in[0], in[1], transpose_a, transpose_b);
          }};
}

}  // namespace

std::vector<GradcheckCase> matmul_checks() {
  std::vector<GradcheckCase> cases{
      product("A @ B", {3, 4}, {4, 2}, false, false),                      // [3, 4] · [4, 2] → [3, 2]
      product("A.T @ B", {4, 3}, {4, 2}, true, false),                      // [4, 3]ᵀ · [4, 2] → [3, 2]
      product("A @ B.T", {3, 4}, {2, 4}, false, true),                      // [3, 4] · [2, 4]ᵀ → [3, 2]
      product("A.T @ B.T", {4, 3}, {2, 4}, true, true),                      // [4, 3]ᵀ · [2, 4]ᵀ → [3, 2]
      product("batched 3-D", {2, 3, 4}, {2, 4, 2}, false, false),        // → [2, 3, 2]
      product("batched 3-D, A.T @ B", {2, 4, 3}, {2, 4, 2}, true, false),   // → [2, 3, 2]
      product("batched 4-D, Q @ K.T", {2, 2, 3, 2}, {2, 2, 4, 2}, false, true),  // [B, h, T, d_k]·[B, h, S, d_k]ᵀ
      product("batched 4-D, A.T @ B.T", {2, 2, 2, 3}, {2, 2, 2, 2}, true, true),  // → [2, 2, 3, 2]
      product("shared B (one GEMM)", {2, 3, 4}, {4, 2}, false, false),   // [B, T, d_in] · [d_in, d_out]
      product("shared B.T: x @ W.T (Linear)", {2, 3, 4}, {2, 4}, false, true),   // [B, T, d_in] · [d_out, d_in]ᵀ
      product("shared B under 4-D A", {2, 2, 3, 4}, {4, 2}, false, false),
      product("shared B, A.T (per batch entry)", {2, 4, 3}, {4, 2}, true, false),
      {"matmul", "same tensor twice: x @ x.T",
       [](Generator& gen) { return std::vector<Tensor>{Tensor::randn({3, 4}, gen)}; },
       [](const std::vector<Tensor>& in) { return matmul(in[0], in[0], false, true); }},
  };
  explain_op(cases, "matmul",
             "C = op(A) · op(B),  C[i, j] = Σ_p op(A)[i, p] · op(B)[p, j];  op(X) = X or Xᵀ; leading axes are a "
             "batch",
             "with G = ∂L/∂C:  ∂op(A) = G · op(B)ᵀ,  ∂op(B) = op(A)ᵀ · G   (a B shared by the batch sums its "
             "gradients)");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
