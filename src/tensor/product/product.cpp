// product.cpp — C += op(X) · op(Y) on plain matrices, the same bits wherever the numbers sit in memory.
//
// Every matrix product of the engine (matmul, and the kernels linear and linear_cross_entropy) ends here. The
// idea is one line, `C.noalias() += X * Y;` (Eigen's GEMM, the plain one; the fused path's kernels ask for
// attnlab's own instead, Gemm::packed: tensor/product/packed_product.cpp). The three routes below exist for two reasons a
// learner can skip on a first reading: reproducibility (the same seed must give the same bits) and decoding speed (a few rows times a
// large weight). tests/autograd/test_ops_matmul_shape.cpp checks every route against the definition
// C[i, j] += Σ_p op(X)[i, p] · op(Y)[p, j] and for the same bits at every memory offset.
#include "tensor/product/product.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "tensor/parallel.h"
#include "tensor/product/blas_product.h"
#include "tensor/product/packed_product.h"
#include "tensor/product/simd128_product.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// C += op(X) · op(Y) (this file): the one kernel everything below is made of (Eigen's GEMM, or a loop of our own
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

// Large products skip the copies. A product whose sizes are all at least `direct_size` is done by a blocked GEMM
// (attnlab's packed product, or Eigen's under model.path: paper). Either copies ("packs") its operands into
// its own blocks — the packed product packs op(Y) and reads op(X) through strides — and walks them by row and
// column index alone — never by address — so its result does not depend on where the numbers sit, and adding
// straight into C (Eigen's C += 1·AB, one rounding per element, as `C += product` makes) gives the very bits the
// scratch route gives. The alignment-dependent paths (matrix·vector products, and the coefficient-by-
// coefficient loop Eigen uses when n + k + m < 20) are only reached by small products, which keep the scratch.
// tests/autograd/test_ops_matmul_shape.cpp checks both routes for the same bits at every offset.
constexpr int64_t direct_size = 16;

// Thin products: a few rows times a large matrix. Decoding one token of a few sentences multiplies [n, k] by a
// weight [k, m] with n = 1 … 15 (a Linear layer: the weight as stored is W [m, k]). Both routes above are wrong
// for it: the scratch route copies the whole weight every call (8 MB for the base model's output layer), and
// Eigen's GEMM copies ("packs") it too. So a few rows take a loop of our own, which reads each weight row once,
// in place. Its sums run in a fixed order (16 running partial sums, combined in a fixed tree), so the bits do
// not depend on where the numbers sit, either. The reference it must match to float rounding is the definition
// C[i, j] += Σ_p op(X)[i, p] · op(Y)[p, j]; tests/autograd/test_ops_matmul_shape.cpp checks it and the offsets.
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

// When is a thin product worth the threads? It reads each weight row once, in place — no packing — so it pays
// at a far lower bar than a blocked product (worth_threads_for_products, 4 M): 100 K multiply-adds, counted over
// all n rows. Measured on the 2-core VM with the small benchmark model (d_model 128, d_ff 512, vocabulary
// 1000), sentences/s at 2 threads against 1 (medians of 8 alternated runs): with this bar, greedy decoding
// (1 row) 552 vs 551 — its output layer [1, 128]·[128, 1000], 128 K, shared — and beam search (4 rows) 175
// vs 159; with the bar at 256 K, greedy 536 (the output layer on one thread); at 64 K, when the feed-forward
// layers' [1, 128]·[128, 512] were shared too, greedy lost 4 %. (The bar was once counted on the weight alone,
// m·k ≥ 256 K, which left the small model's decoding on one thread.)
constexpr int64_t thin_split_work = 100'000;
bool worth_threads_for_thin_product(int64_t multiply_adds) { return multiply_adds >= thin_split_work; }

void add_thin_product(MatrixMap C, ConstMatrixMap X, bool transpose_x, ConstMatrixMap Y, bool transpose_y) {
  const int64_t n = C.rows(), m = C.cols(), k = transpose_x ? X.rows() : X.cols();
  AlignedMatrixMap x(aligned_scratch(0, n * k), n, k);                  // op(X) [n, k], rows contiguous (small)
  if (transpose_x) x = X.transpose();
  else x = X;
  if (transpose_y) {
    // Y as stored is [m, k] (a weight W): C[i, j] += x_i · W_j, both rows contiguous. The columns j are
    // independent, so a product with enough work is shared among the threads; each C[i, j] is still one
    // fixed-order sum, whatever the thread count.
    const real* x_data = x.data();
    parallel_for(m, worth_threads_for_thin_product(n * k * m), [&](int64_t j) {   // (tensor/parallel.h)
      const real* w = Y.data() + j * k;                                 // W_j [k]
      for (int64_t i = 0; i < n; ++i) C(i, j) += fixed_order_dot(x_data + i * k, w, k);
    });
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

// ---- Sharing one product among the threads ----
//
// Eigen's GEMM can use the threads itself, but it shares the work inside one blocked product: the threads pack
// the operands' blocks together and wait for each other after every block of the depth k. That pays for one big
// square product; a training step's products are thinner — the attention projections' weight gradient
// ∂W [256, 256] = Gᵀ [256, 2048] · x [2048, 256], the output layer's chunks [131, 8000] — and there the waiting
// ate a third of the second core (2 threads gave 1.3–1.7× instead of 1.8–2×). So a product with enough work is
// cut here instead: C's longer side into one contiguous band per thread (a multiple of 16 wide), and every
// thread runs the GEMM on its band alone, start to finish, with no waiting until the end:
//     C[b:e, :] += op(X)[b:e, :] · op(Y)          (bands of rows), or
//     C[:, b:e] += op(X) · op(Y)[:, b:e]          (bands of columns)
// (or, for a deep product whose C is small, the depth k into bands: "Deep products" below).
// Each band is still a blocked GEMM, so its bits do not depend on where the numbers sit. With the packed product
// they do not depend on the bands either (its blocks are fixed: tests/tensor/test_packed_product.cpp); with Eigen's they
// can (Eigen picks its block sizes from the band's), and so on the thread count, as Eigen's own threading did.
// tests/autograd/test_ops_matmul_shape.cpp checks the split against the definition.
// C += op(X) · op(Y) by a blocked GEMM (the direct route above), on any row-major views: attnlab's own packed
// product, or Eigen's one line.
void add_blocked_product(StridedMatrixMap C, ConstStridedMatrixMap X, bool transpose_x, ConstStridedMatrixMap Y,
                         bool transpose_y, Gemm gemm) {
  if (gemm == Gemm::packed) {
    add_packed_product(C, X, transpose_x, Y, transpose_y);
  } else if (gemm == Gemm::blas) {
    add_blas_product(C, X, transpose_x, Y, transpose_y);
  } else if (gemm == Gemm::simd128) {
    add_simd128_product(C, X, transpose_x, Y, transpose_y);
  } else if (!transpose_x && !transpose_y) C.noalias() += X * Y;
  else if (transpose_x && !transpose_y) C.noalias() += X.transpose() * Y;
  else if (!transpose_x && transpose_y) C.noalias() += X * Y.transpose();
  else C.noalias() += X.transpose() * Y.transpose();
}

constexpr int64_t band_multiple = 16;                 // band edges on multiples of 16 (Eigen's register blocks)

// The bands of [0, length) for `threads` threads: band t is [edge(t), edge(t + 1)).
int64_t band_edge(int64_t length, int t, int threads) {
  if (t >= threads) return length;
  return length * t / threads / band_multiple * band_multiple;
}

// How a product is shared among the threads: not at all, by bands of C (rows or columns, above), or by bands
// of the depth (below).
enum class Cut { none, rows, columns, depth };

// C is cut when there is enough work and we are not inside another parallel region. The longer side of C is cut
// into bands of at least `band_multiple` — unless the depth k is at least as long as that side: then the depth.
Cut choose_cut(int64_t n, int64_t k, int64_t m, int threads) {
  if (threads < 2 || !worth_threads_for_products(n * k * m)) return Cut::none;   // below ~4 M multiply-adds
                                                                       // waking the other threads costs about
                                                                       // what they save
  const int64_t longest = std::max(n, m);
  if (k >= longest && k >= 2 * band_multiple * threads) return Cut::depth;
  if (longest < 2 * band_multiple * threads) return Cut::none;
  return n >= m ? Cut::rows : Cut::columns;
}

void add_split_product(MatrixMap C, ConstMatrixMap X, bool transpose_x, ConstMatrixMap Y, bool transpose_y,
                       int threads, bool by_rows, Gemm gemm) {
  const int64_t n = C.rows(), m = C.cols(), k = transpose_x ? X.rows() : X.cols();
  const int64_t x_stride = X.cols(), y_stride = Y.cols();
#pragma omp parallel for schedule(static, 1) num_threads(threads)
  for (int t = 0; t < threads; ++t) {
    if (by_rows) {
      const int64_t b = band_edge(n, t, threads), e = band_edge(n, t + 1, threads);
      // rows b..e of op(X): rows of X, or columns of X when it is transposed
      ConstStridedMatrixMap x(transpose_x ? X.data() + b : X.data() + b * x_stride, transpose_x ? k : e - b,
                        transpose_x ? e - b : k, Eigen::OuterStride<>(x_stride));
      ConstStridedMatrixMap y(Y.data(), Y.rows(), Y.cols(), Eigen::OuterStride<>(y_stride));
      add_blocked_product(StridedMatrixMap(C.data() + b * m, e - b, m, Eigen::OuterStride<>(m)),  // C[b:e, :]
                          x, transpose_x, y, transpose_y, gemm);
    } else {
      const int64_t b = band_edge(m, t, threads), e = band_edge(m, t + 1, threads);
      // columns b..e of op(Y): columns of Y, or rows of Y when it is transposed
      ConstStridedMatrixMap x(X.data(), X.rows(), X.cols(), Eigen::OuterStride<>(x_stride));
      ConstStridedMatrixMap y(transpose_y ? Y.data() + b * y_stride : Y.data() + b, transpose_y ? e - b : k,
                        transpose_y ? k : e - b, Eigen::OuterStride<>(y_stride));
      add_blocked_product(StridedMatrixMap(C.data() + b, n, e - b, Eigen::OuterStride<>(m)),      // C[:, b:e]
                          x, transpose_x, y, transpose_y, gemm);
    }
  }
}

// ---- Deep products: bands of the depth ----
//
// A weight's gradient in training is small and deep: ∂W [out, in] = Gᵀ · x sums over every position of the batch
// (k = 2048 for the small benchmark model, C only [128, 128]). Cut into bands of C, each thread would still read
// and pack all of x for its half of the rows, and the small bands suit Eigen's blocking badly: 2 threads gave
// 1.64× on the small model's attention projections. So when the depth is at least as long as C's longer side,
// the depth is cut instead — thread t takes the positions [b_t, e_t) and computes a partial product of its own,
// then the partials are added, in thread order, to C:
//     P_t = op(X)[:, b_t:e_t] · op(Y)[b_t:e_t, :]          C += P_0 + P_1 + … + P_(T-1)
// Every operand number is read by one thread only. The partials live in scratch space of the calling thread,
// [threads, n, m] — no bigger than threads × the smaller input (n·m ≤ k·min(n, m), as k ≥ max(n, m)), reused
// from call to call.
// The bits depend on the thread count (the sum is split at b_t), not on where the numbers sit.
void add_depth_split_product(MatrixMap C, ConstMatrixMap X, bool transpose_x, ConstMatrixMap Y, bool transpose_y,
                             int threads, Gemm gemm) {
  const int64_t n = C.rows(), m = C.cols(), k = transpose_x ? X.rows() : X.cols();
  const int64_t x_stride = X.cols(), y_stride = Y.cols(), size = n * m;
  real* partials = aligned_scratch(2, threads * size);                  // [threads, n, m]
  real* c = C.data();
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    const int64_t b = band_edge(k, t, threads), e = band_edge(k, t + 1, threads);
    // columns b..e of op(X) (rows of X when it is transposed), rows b..e of op(Y) (columns when transposed)
    ConstStridedMatrixMap x(transpose_x ? X.data() + b * x_stride : X.data() + b, transpose_x ? e - b : n,
                      transpose_x ? n : e - b, Eigen::OuterStride<>(x_stride));
    ConstStridedMatrixMap y(transpose_y ? Y.data() + b : Y.data() + b * y_stride, transpose_y ? m : e - b,
                      transpose_y ? e - b : m, Eigen::OuterStride<>(y_stride));
    StridedMatrixMap partial(partials + t * size, n, m, Eigen::OuterStride<>(m));   // P_t [n, m]
    partial.setZero();
    add_blocked_product(partial, x, transpose_x, y, transpose_y, gemm);
#pragma omp barrier
#pragma omp for schedule(static)
    for (int64_t i = 0; i < size; ++i) {                                // C += P_0 + … + P_(T-1), in that order
      real sum = partials[i];
      for (int u = 1; u < threads; ++u) sum += partials[u * size + i];
      c[i] += sum;
    }
  }
}

// model.precision: bfloat16 (or bfloat16-emulated): the operands rounded to bfloat16, every sum in float32
// (tensor/product/bf16_product.h), on the fastest path the CPU has (AMX tiles, else vdpbf16ps) or the emulated one. The
// float64 build, which the gradient checks run in, has no rounded products: its numbers are the ones the others are
// checked against.
void add_rounded_product(MatrixMap C, ConstMatrixMap X, bool transpose_x, ConstMatrixMap Y, bool transpose_y,
                         Precision precision) {
#if defined(ATTNLAB_DOUBLE)
  (void)C, (void)X, (void)transpose_x, (void)Y, (void)transpose_y;
  throw Error("add_product: model.precision " + name_of(precision) + " in the float64 build, which computes in "
              "float64 only (use float32)");
#else
  const Bf16Path path = resolve_precision(precision) == Precision::bfloat16 ? fastest_bf16_path() : Bf16Path::emulated;
  add_bf16_product(FloatMatrixMap(C.data(), C.rows(), C.cols()), ConstFloatMatrixMap(X.data(), X.rows(), X.cols()),
                   transpose_x, ConstFloatMatrixMap(Y.data(), Y.rows(), Y.cols()), transpose_y, path);
#endif
}

}  // namespace

// model.gemm: auto is attnlab's packed GEMM. At the base model's shapes (`attnlab bench`, docs/guide/performance.md)
// OpenBLAS's was a few per cent faster on one thread, but Debian's serial OpenBLAS cannot run two products at once
// (blas_product.cpp), so a product on OpenBLAS uses one thread while the packed GEMM's is shared among all of them.
// In the browser build auto is the packed GEMM's simd128 twin (simd128_product.h): the same numbers, its tiles four
// floats wide where the packed GEMM's are one (Eigen has no WebAssembly packets).
Gemm resolve_gemm(Gemm gemm, const std::string& key) {
  if (gemm == Gemm::automatic) return simd128_available() ? Gemm::simd128 : Gemm::packed;
  if (gemm == Gemm::blas && !blas_available()) throw Error(key + ": blas: OpenBLAS is " + blas_description());
  if (gemm == Gemm::simd128 && !simd128_available()) {
    throw Error(key + ": simd128: the product backend is " + simd128_description() + "; use auto or packed here");
  }
  return gemm;
}

const std::vector<std::string>& choice_names(Gemm) {
  static const std::vector<std::string> names{"eigen", "packed", "blas", "simd128", "auto"};
  return names;
}

std::vector<Gemm> built_gemms() {
  std::vector<Gemm> gemms{Gemm::eigen, Gemm::packed};
  if (blas_available()) gemms.push_back(Gemm::blas);
  if (simd128_available()) gemms.push_back(Gemm::simd128);
  return gemms;
}

void add_product(MatrixMap C, ConstMatrixMap X, bool transpose_x, ConstMatrixMap Y, bool transpose_y, Gemm gemm,
                 Precision precision) {
  if (precision != Precision::float32) {
    add_rounded_product(C, X, transpose_x, Y, transpose_y, precision);
    return;
  }
  gemm = resolve_gemm(gemm);
  // The threads are shared out here (the bands above), so Eigen's GEMM itself always runs on one: with its own
  // threading left on, a product too small to cut (the encoder's [32, 128] · [128, 128] when translating one
  // sentence) would still wake the other threads and wait for them, and decoding got slower on two cores.
  static const bool eigen_on_one_thread = (Eigen::setNbThreads(1), true);
  (void)eigen_on_one_thread;
  const int64_t depth = transpose_x ? X.rows() : X.cols();
  if (C.rows() < thin_rows && C.cols() >= direct_size && depth >= direct_size) {
    add_thin_product(C, X, transpose_x, Y, transpose_y);
    return;
  }
  if (C.rows() >= direct_size && C.cols() >= direct_size && depth >= direct_size) {
    // OpenBLAS's product runs on the calling thread alone: Debian's serial OpenBLAS 0.3.21 gave wrong numbers
    // when bands of one product were computed at once (blas_product.cpp), so its calls take turns anyway.
    const int threads = omp_in_parallel() || gemm == Gemm::blas ? 1 : omp_get_max_threads();
    const Cut cut = choose_cut(C.rows(), depth, C.cols(), threads);
    if (cut == Cut::depth) {
      add_depth_split_product(C, X, transpose_x, Y, transpose_y, threads, gemm);
    } else if (cut != Cut::none) {
      add_split_product(C, X, transpose_x, Y, transpose_y, threads, cut == Cut::rows, gemm);
    } else {
      add_blocked_product(StridedMatrixMap(C.data(), C.rows(), C.cols(), Eigen::OuterStride<>(C.cols())),
                          ConstStridedMatrixMap(X.data(), X.rows(), X.cols(), Eigen::OuterStride<>(X.cols())),
                          transpose_x,
                          ConstStridedMatrixMap(Y.data(), Y.rows(), Y.cols(), Eigen::OuterStride<>(Y.cols())),
                          transpose_y, gemm);
    }
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

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
