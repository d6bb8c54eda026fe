// matmul.cpp — the matrix product C = op(A) · op(B), batched, and its gradient.
//
// The idea. For matrices A [n, k] and B [k, m] the product C = A · B is [n, m], with
//     C[i, j] = Σ_p A[i, p] · B[p, j].
// op(X) is X, or Xᵀ (its last two axes swapped) when asked, so attention can write Q · Kᵀ without copying K:
//     scores = matmul(Q, K, false, /*transpose_b=*/true)    // [B, h, T, d_k] · [B, h, S, d_k]ᵀ → [B, h, T, S]
// Batched: the leading axes of A and B must be equal, and each batch entry is one matrix product.
// Shared: B may be a plain matrix, used by every batch entry of A. That is a Linear layer, y = x · Wᵀ:
//     matmul(x, W, false, /*transpose_b=*/true)               // [B, T, d_in] · [d_out, d_in]ᵀ → [B, T, d_out]
//
// Backward. With G = ∂loss/∂C, the product rule dC = d(op(A)) · op(B) + op(A) · d(op(B)) gives
//     ∂op(A) = G · op(B)ᵀ            ∂op(B) = op(A)ᵀ · G
// and where op transposed an input, its gradient is transposed back ((Xᵀ)ᵀ = X, (X·Y)ᵀ = Yᵀ·Xᵀ):
//     forward           ∂A             ∂B
//     C = A  · B        G  · Bᵀ        Aᵀ · G
//     C = Aᵀ · B        B  · Gᵀ        A  · G
//     C = A  · Bᵀ       G  · B         Gᵀ · A
//     C = Aᵀ · Bᵀ       Bᵀ · Gᵀ        Gᵀ · Aᵀ
// (Check a row by its shapes. Row 2: A [k, n], B [k, m], G [n, m]; B · Gᵀ is [k, m] · [m, n] = [k, n], A's shape.)
// A shared B takes part in every batch entry, so its gradient is the sum of the entries' gradients.
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "tensor/product/product.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// How one matmul call is carried out: `count` matrix products C_i = op(A_i) · op(B_i), where A_i, B_i and C_i
// are the i-th consecutive blocks of the tensors' numbers (row-major, so a batch entry is one block), and
// B_i = B for every i when B is shared.
struct MatmulPlan {
  Shape out;                        // C's shape: A's batch axes, then [n, m]
  int64_t count = 1;                // how many matrix products
  int64_t a_rows = 0, a_cols = 0;   // each A_i as stored (before op)
  int64_t b_rows = 0, b_cols = 0;   // each B_i as stored
  int64_t c_rows = 0, c_cols = 0;   // each C_i
  bool b_shared = false;            // B_i = B for every i
};

std::string batch_axes(const Shape& s) {  // "[2, 4]": the sizes before the last two
  std::string text = "[";
  for (int axis = 0; axis + 2 < s.rank(); ++axis) text += (axis ? ", " : "") + std::to_string(s[axis]);
  return text + "]";
}

// Checks that op(A) · op(B) is defined and lays out the products; throws attnlab::Error otherwise.
MatmulPlan plan_matmul(const Shape& a, const Shape& b, bool transpose_a, bool transpose_b) {
  const std::string shapes = "matmul: shapes " + a.str() + " and " + b.str() + " do not fit: ";
  if (a.rank() < 2 || b.rank() < 2) {
    throw Error(shapes + "both need at least 2 axes (a matrix, or a batch of matrices)");
  }
  const bool b_shared = b.rank() == 2;
  bool same_batch = a.rank() == b.rank();
  for (int axis = 0; same_batch && axis + 2 < a.rank(); ++axis) same_batch = a[axis] == b[axis];
  if (!same_batch && !b_shared) {
    throw Error(shapes + "the batch axes " + batch_axes(a) + " and " + batch_axes(b) +
                " differ (B must have A's batch axes, or be a matrix shared by every batch entry)");
  }
  const int64_t n = transpose_a ? a[-1] : a[-2];   // op(A) is [n, k]
  const int64_t k = transpose_a ? a[-2] : a[-1];
  const int64_t k_b = transpose_b ? b[-1] : b[-2];  // op(B) is [k, m]
  const int64_t m = transpose_b ? b[-2] : b[-1];
  if (k != k_b) {
    const std::string A = transpose_a ? "Aᵀ" : "A", B = transpose_b ? "Bᵀ" : "B";
    throw Error(shapes + "in " + A + "·" + B + " the inner sizes must agree, but " + A + " has " +
                std::to_string(k) + " columns and " + B + " has " + std::to_string(k_b) + " rows");
  }

  MatmulPlan plan;
  int64_t batch = 1;
  std::vector<int64_t> out_sizes;
  for (int axis = 0; axis + 2 < a.rank(); ++axis) {
    batch *= a[axis];
    out_sizes.push_back(a[axis]);
  }
  out_sizes.push_back(n);
  out_sizes.push_back(m);
  plan.out = Shape(out_sizes);
  plan.b_shared = b_shared;
  plan.b_rows = b[-2];
  plan.b_cols = b[-1];
  plan.c_cols = m;
  plan.a_cols = a[-1];
  if (b_shared && !transpose_a) {
    // The Linear layer's hot path: A [..., n, k] is, as stored, one [batch·n, k] matrix, and every batch entry
    // is multiplied by the same op(B), so the whole call is ONE product [batch·n, k] · [k, m] → [batch·n, m].
    // (The obvious version, `batch` small products in the loop below, gives the same numbers, more slowly.)
    plan.count = 1;
    plan.a_rows = batch * a[-2];
    plan.c_rows = batch * n;
  } else {
    plan.count = batch;
    plan.a_rows = a[-2];
    plan.c_rows = n;
  }
  return plan;
}

// The i-th block of `rows`·`cols` numbers, seen as a [rows, cols] matrix.
ConstMatrixMap block(const real* data, int64_t i, int64_t rows, int64_t cols) {
  return ConstMatrixMap(data + i * rows * cols, rows, cols);
}
MatrixMap block(real* data, int64_t i, int64_t rows, int64_t cols) {
  return MatrixMap(data + i * rows * cols, rows, cols);
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  const MatmulPlan p = plan_matmul(a.shape(), b.shape(), transpose_a, transpose_b);
  Tensor c = Tensor::zeros(p.out);                                      // [..., n, m]
  for (int64_t i = 0; i < p.count; ++i) {
    const int64_t j = p.b_shared ? 0 : i;                               // the B block that entry i uses
    add_product(block(c.data(), i, p.c_rows, p.c_cols),                 // C_i [n, m]
                block(a.data(), i, p.a_rows, p.a_cols), transpose_a,    // op(A_i) [n, k]
                block(b.data(), j, p.b_rows, p.b_cols), transpose_b);   // op(B_j) [k, m]
  }

  record(c, "matmul", {a, b}, [a, b, p, transpose_a, transpose_b](TensorNode& out) {
    const real* g = out.grad.data();
    real* ga = wants_grad(a) ? a.grad() : nullptr;
    real* gb = wants_grad(b) ? b.grad() : nullptr;
    for (int64_t i = 0; i < p.count; ++i) {
      const int64_t j = p.b_shared ? 0 : i;
      ConstMatrixMap G = block(g, i, p.c_rows, p.c_cols);               // ∂C_i [n, m]
      ConstMatrixMap A = block(a.data(), i, p.a_rows, p.a_cols);        // A_i as stored: [n, k], or [k, n]
      ConstMatrixMap B = block(b.data(), j, p.b_rows, p.b_cols);        // B_j as stored: [k, m], or [m, k]
      if (ga) {
        MatrixMap gA = block(ga, i, p.a_rows, p.a_cols);                // ∂A_i, shaped like A_i
        if (!transpose_a) add_product(gA, G, false, B, !transpose_b);   // ∂A = G · op(B)ᵀ   (G·Bᵀ, or G·B)
        else add_product(gA, B, transpose_b, G, true);                  // ∂A = op(B) · Gᵀ   (B·Gᵀ, or Bᵀ·Gᵀ)
      }
      if (gb) {
        // ∂B_j, shaped like B_j. A shared B (j = 0 for every i) collects the sum over the batch entries: here
        // by the += of each i, and on the one-GEMM path inside the product, whose inner sum runs over all
        // batch·n rows: Aᵀ · G = Σ_i A_iᵀ · G_i.
        MatrixMap gB = block(gb, j, p.b_rows, p.b_cols);
        if (!transpose_b) add_product(gB, A, !transpose_a, G, false);   // ∂B = op(A)ᵀ · G   (Aᵀ·G, or A·G)
        else add_product(gB, G, true, A, transpose_a);                  // ∂B = Gᵀ · op(A)   (Gᵀ·A, or Gᵀ·Aᵀ)
      }
    }
  });
  return c;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
