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
#include <algorithm>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/ops/product.h"
#include "tensor/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

// C += op(X) · op(Y) (product.h): the one kernel everything below is made of (Eigen's GEMM, or a loop of our own
// for a few rows).
//
// The obvious version is one line, `C.noalias() += X * Y;`. It is not deterministic: compiled for this CPU
// (-march=native), Eigen picks its vectorised code path — and so the order of the additions, and so the last bit
// of the result — by where in memory the numbers happen to sit. The same product could then round differently
// from one call to the next, and "same seed → same numbers" and the bit-for-bit causality proofs would break.
// So every product is computed between buffers at Eigen's preferred alignment: the inputs are copied into
// aligned scratch space, the product goes into aligned scratch space, and is then added to C. The scratch
// buffers belong to the thread, grow to the largest product seen and are reused, so a warm training step
// allocates nothing here. (Copying costs O(nk + km + nm), small next to the product's O(nkm).)
using AlignedMatrixMap = Eigen::Map<Matrix, Eigen::AlignedMax>;

real* aligned_scratch(int slot, int64_t size) {
  thread_local std::vector<real, Eigen::aligned_allocator<real>> buffers[3];
  std::vector<real, Eigen::aligned_allocator<real>>& buffer = buffers[slot];
  if (static_cast<int64_t>(buffer.size()) < size) buffer.resize(static_cast<size_t>(size));
  return buffer.data();
}

// Large products skip the copies. A product whose sizes are all at least `direct_size` is done by Eigen's
// blocked GEMM, which copies ("packs") both operands into its own aligned blocks and walks them by row and
// column index alone — never by address — so its result does not depend on where the numbers sit, and adding
// straight into C (Eigen's C += 1·AB, one rounding per element, as `C += product` makes) gives the very bits the
// scratch route gives. The alignment-dependent paths (matrix·vector products, and the coefficient-by-
// coefficient loop Eigen uses when n + k + m < 20) are only reached by small products, which keep the scratch.
// tests/test_ops_matmul_shape.cpp checks both routes for the same bits at every offset.
constexpr int64_t direct_size = 16;

// Thin products: a few rows times a large matrix. Decoding one token of a few sentences multiplies [n, k] by a
// weight [k, m] with n = 1 … 15 (a Linear layer: the weight as stored is W [m, k]). Both routes above are wrong
// for it: the scratch route copies the whole weight every call (8 MB for the base model's output layer), and
// Eigen's GEMM copies ("packs") it too. So a few rows take a loop of our own, which reads each weight row once,
// in place. Its sums run in a fixed order (16 running partial sums, combined in a fixed tree), so the bits do
// not depend on where the numbers sit, either. The reference it must match to float rounding is the definition
// C[i, j] += Σ_p op(X)[i, p] · op(Y)[p, j]; tests/test_ops_matmul_shape.cpp checks it and the offsets.
constexpr int lanes = 16;

// Σ_p a[p] · b[p] in a fixed order: lane l sums the products p ≡ l (mod 16), then the lanes are added pairwise.
real fixed_order_dot(const real* a, const real* b, int64_t k) {
  real lane[lanes] = {};
  int64_t p = 0;
  for (; p + lanes <= k; p += lanes) {
    for (int l = 0; l < lanes; ++l) lane[l] += a[p + l] * b[p + l];   // one vector multiply-add per 16 numbers
  }
  for (int l = 0; p < k; ++p, ++l) lane[l] += a[p] * b[p];              // the last k mod 16 products
  for (int width = lanes / 2; width >= 1; width /= 2) {
    for (int l = 0; l < width; ++l) lane[l] += lane[l + width];         // 16 → 8 → 4 → 2 → 1
  }
  return lane[0];
}

constexpr int64_t thin_rows = direct_size;   // fewer rows than this (and a big enough Y) take the thin route

void add_thin_product(MatrixMap C, ConstMatrixMap X, bool transpose_x, ConstMatrixMap Y, bool transpose_y) {
  const int64_t n = C.rows(), m = C.cols(), k = transpose_x ? X.rows() : X.cols();
  AlignedMatrixMap x(aligned_scratch(0, n * k), n, k);                  // op(X) [n, k], rows contiguous (small)
  if (transpose_x) x = X.transpose();
  else x = X;
  if (transpose_y) {
    // Y as stored is [m, k] (a weight W): C[i, j] += x_i · W_j, both rows contiguous. The columns j are
    // independent, so a large weight (the output layer's V rows) is shared among the threads; each C[i, j] is
    // still one fixed-order sum, whatever the thread count.
    const real* x_data = x.data();
#pragma omp parallel for schedule(static) if (m * k >= (int64_t(1) << 18))
    for (int64_t j = 0; j < m; ++j) {
      const real* w = Y.data() + j * k;                                 // W_j [k]
      for (int64_t i = 0; i < n; ++i) C(i, j) += fixed_order_dot(x_data + i * k, w, k);
    }
    return;
  }
  // Y as stored is [k, m]: row i of the product is Σ_p x[i, p] · Y_p, summed over p in order into a row of
  // scratch, then added to C once (one rounding, as C += product makes on the other routes).
  AlignedMatrixMap row(aligned_scratch(2, m), 1, m);                    // [1, m]
  for (int64_t i = 0; i < n; ++i) {
    row.setZero();
    for (int64_t p = 0; p < k; ++p) {
      const real scale = x(i, p);
      const real* y = Y.data() + p * m;                                 // Y_p [m]
      for (int64_t j = 0; j < m; ++j) row(0, j) += scale * y[j];
    }
    for (int64_t j = 0; j < m; ++j) C(i, j) += row(0, j);
  }
}

}  // namespace

void add_product(MatrixMap C, ConstMatrixMap X, bool transpose_x, ConstMatrixMap Y, bool transpose_y) {
  const int64_t depth = transpose_x ? X.rows() : X.cols();
  if (C.rows() < thin_rows && C.cols() >= direct_size && depth >= direct_size) {
    add_thin_product(C, X, transpose_x, Y, transpose_y);
    return;
  }
  if (C.rows() >= direct_size && C.cols() >= direct_size && depth >= direct_size) {
    if (!transpose_x && !transpose_y) C.noalias() += X * Y;
    else if (transpose_x && !transpose_y) C.noalias() += X.transpose() * Y;
    else if (!transpose_x && transpose_y) C.noalias() += X * Y.transpose();
    else C.noalias() += X.transpose() * Y.transpose();
    return;
  }
  AlignedMatrixMap x(aligned_scratch(0, X.size()), X.rows(), X.cols());
  AlignedMatrixMap y(aligned_scratch(1, Y.size()), Y.rows(), Y.cols());
  AlignedMatrixMap product(aligned_scratch(2, C.size()), C.rows(), C.cols());
  x = X;
  y = Y;
  if (!transpose_x && !transpose_y) product.noalias() = x * y;
  else if (transpose_x && !transpose_y) product.noalias() = x.transpose() * y;
  else if (!transpose_x && transpose_y) product.noalias() = x * y.transpose();
  else product.noalias() = x.transpose() * y.transpose();
  C += product;
}

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

// ---- The Linear layer's op: y = x · Wᵀ + b in one node ----
//
// matmul followed by add would give the same numbers (to rounding), but would keep two [..., out] tensors alive
// until backward — the product and the sum — and walk the output twice. Here the output starts as b in every
// row and the product is added into it, so there is one tensor and one pass:
//     forward                                  backward (G = ∂L/∂y, rows i over every leading position)
//     y[i, j] = b[j] + Σ_p x[i, p] · W[j, p]   ∂x = G · W      ∂W = Gᵀ · x      ∂b[j] = Σ_i G[i, j]
// The reference is linear_reference-style code in tests/test_ops_matmul_shape.cpp: matmul(x, W, false, true)
// then add(·, b), which this must match.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
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
  Tensor y = Tensor::zeros(Shape(out_sizes));                              // [..., out]
  MatrixMap Y(y.data(), rows, out);                                        // [rows, out]
  if (bias.defined()) {
    for (int64_t i = 0; i < rows; ++i) std::copy(bias.data(), bias.data() + out, y.data() + i * out);  // y_i = b
  }
  add_product(Y, ConstMatrixMap(x.data(), rows, in), false,               // x [rows, in]
              ConstMatrixMap(weight.data(), out, in), /*transpose_y=*/true);  // Wᵀ [in, out]

  std::vector<Tensor> inputs{x, weight};
  if (bias.defined()) inputs.push_back(bias);
  record(y, "linear", inputs, [x, weight, bias, rows, in, out](TensorNode& node) {
    ConstMatrixMap G(node.grad.data(), rows, out);                         // ∂y [rows, out]
    if (wants_grad(x)) {
      add_product(MatrixMap(x.grad(), rows, in), G, false,                  // ∂x [rows, in] += G · W
                  ConstMatrixMap(weight.data(), out, in), false);
    }
    if (wants_grad(weight)) {
      add_product(MatrixMap(weight.grad(), out, in), G, /*transpose_x=*/true,  // ∂W [out, in] += Gᵀ · x
                  ConstMatrixMap(x.data(), rows, in), false);
    }
    if (bias.defined() && wants_grad(bias)) {
      real* gb = bias.grad();                                               // ∂b [out] += Σ_i G_i, rows in order
      for (int64_t i = 0; i < rows; ++i) {
        for (int64_t j = 0; j < out; ++j) gb[j] += G(i, j);
      }
    }
  });
  return y;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
