// bf16_product_avx512.cpp — the fast path of the bfloat16 product: C += op(X) · op(Y) by vdpbf16ps.
//
// The instruction (Intel SDM, VDPBF16PS; the intrinsic _mm512_dpbf16_ps(c, a, b)) reads each of its 16 lanes of
// a and b as a pair of bfloat16 numbers and does, lane by lane,
//     c ← c + a.odd · b.odd;   c ← c + a.even · b.even        (each + rounded to nearest even, subnormals as zero)
// — two multiply-adds per lane, 32 per instruction, against 16 for a float32 vfmadd. So the numbers are laid out in
// pairs along the depth p: a lane holds (x[2t], x[2t+1]) or (y[2t, j], y[2t+1, j]), the even one in the low half.
//
// The rest is packed_product.cpp's plan in pairs:
//   1. the depth k is cut into blocks of depth_block = 512 numbers (256 pairs). Each block reads and writes all of
//      C once, so the deeper the block the fewer passes over C: for ∂W = Gᵀ·x, whose depth is the batch's tokens,
//      C is the whole weight's gradient. At 512 rather than float32's 256 a vdpbf16ps, which does twice the work of
//      a vfmadd, meets as many bytes of C per instruction as float32 does (the base step 0.92–0.94 × the time at 256
//      on a Zen 5, docs/guide/performance.md);
//   2. op(Y)'s block is rounded and packed into panels of 32 columns (pack_y, bf16_pairs_avx512.h, which the tile
//      path shares): panel row t holds the pairs (2t, 2t+1) of columns j0 … j0 + 31 — two vector registers,
//      128 bytes; a panel is 32 KB, read in order by the tiles.
//      When op(Y) = Yᵀ (the forward's Wᵀ) a column is a row of Y: 16 rows' pairs are loaded a vector each and the
//      16 × 16 block turned over in registers (transpose_16x16), so each panel row is written whole;
//   3. the rows of C go row_block = 192 at a time; op(X)'s block for them is rounded and packed in pairs (192 KB,
//      in the second cache): row by row ([rows, 256] pairs) when X's rows are op(X)'s, pair by pair ([256, rows])
//      when op(X) = Xᵀ — each layout the one its loads write with whole vector stores (pack_x);
//   4. a tile of 8 rows × 32 columns of C (16 registers) is loaded, takes every pair t of the block — the 8
//      rows' pairs broadcast one at a time, the panel row loaded once — and is stored back.
// A tile starts from C and ends in C, block after block, so each C[i, j] is one chain of + over t in order,
// exactly as bf16_product.h writes it; edges past m are masked, an odd k gets zero partners.
//
// Rounding to bfloat16 here is the CPU's (vcvtneps2bf16, round to nearest even): the same bits as to_bfloat16
// (tensor/bfloat16.h) except that it reads a subnormal float as zero — tests/tensor/test_bfloat16.cpp compares them.
//
// This whole file is compiled for AVX512_BF16 (the target pragma below) whatever the build's -march, and only
// bf16_product.cpp calls it, after asking the CPU. Off x86-64 (the browser build) it is empty.
#include "tensor/product/bf16_product_avx512.h"

#if defined(__x86_64__)

#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "tensor/product/bf16_pairs_avx512.h"

// GCC compiles what follows for these instructions by its target pragma; clang (the fuzz build) ignores that
// pragma and takes the same target as an attribute on every function below.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512bf16")
#endif

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

using namespace bf16_pairs;  // first_lanes, pairs_along, pairs_across, pack_y, panel_width

constexpr int64_t depth_block = 512;  // numbers of the depth per block (even)
constexpr int64_t pairs_per_block = depth_block / 2;
constexpr int64_t row_block = 192;   // rows of C per pass over the panels
constexpr int tile_rows = 8;         // 8 × 2 accumulators + 2 for Y + 1 for X: 19 of 32 registers

// A block of op(X) packed in pairs: row r's pair t at data[r · row_step + t · pair_step].
struct PackedX {
  const uint32_t* data;
  int64_t row_step, pair_step;
  PackedX from_row(int64_t r) const { return {data + r * row_step, row_step, pair_step}; }  // rows r, r + 1, …
};

// The pairs of op(X)[i0 … i0 + rows − 1, p0 … p0 + kc − 1] in `packed`. X's rows are op(X)'s: row by row (row r at
// packed + r·pairs), the 16 pairs of 32 consecutive floats a vector. op(X) = Xᵀ: pair by pair (pair t at
// packed + t·rows), 16 rows' pairs t from X's rows 2t and 2t + 1 a vector — where a row-by-row layout would
// scatter those 16 pairs one number at a time, 16 places `pairs` apart (which took about a third of a ∂W = Gᵀ·x
// product's time).
PackedX pack_x(const float* X, int64_t x_stride, bool transpose_x, int64_t i0, int64_t rows, int64_t p0, int64_t kc,
               uint32_t* packed) {
  const int64_t pairs = (kc + 1) / 2;
  if (!transpose_x) {  // X [n, k]: a row of op(X) is a row of X
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = X + (i0 + r) * x_stride + p0;
      for (int64_t t = 0; t < pairs; t += 16) {  // 16 pairs a store, the last ones masked
        _mm512_mask_storeu_epi32(packed + r * pairs + t, first_lanes(pairs - t), pairs_along(row + 2 * t, kc - 2 * t));
      }
    }
    return {packed, pairs, 1};
  }
  for (int64_t t = 0; t < pairs; ++t) {  // X [k, n]: rows p0 + 2t, p0 + 2t + 1 of X
    const float* even = X + (p0 + 2 * t) * x_stride + i0;
    const float* odd = 2 * t + 1 < kc ? even + x_stride : nullptr;
    for (int64_t r0 = 0; r0 < rows; r0 += 16) {
      _mm512_mask_storeu_epi32(packed + t * rows + r0, first_lanes(rows - r0),
                               pairs_across(even + r0, odd ? odd + r0 : nullptr, rows - r0));
    }
  }
  return {packed, 1, rows};
}

// One tile: C[0 … R−1, the panel's columns] += the pairs t < pairs of x's rows 0 … R−1 times the panel.
// `lanes` masks the panel's two registers of columns at the right edge of C.
template <int R>
void tile(int64_t pairs, PackedX x, const uint32_t* panel, float* C, int64_t c_stride, __mmask16 lanes0,
          __mmask16 lanes1) {
  __m512 c[R][2];  // the tile of C, in registers
  for (int r = 0; r < R; ++r) {
    c[r][0] = _mm512_maskz_loadu_ps(lanes0, C + r * c_stride);
    c[r][1] = _mm512_maskz_loadu_ps(lanes1, C + r * c_stride + 16);
  }
  for (int64_t t = 0; t < pairs; ++t) {
    const __m512bh y0 = (__m512bh)_mm512_loadu_si512(panel + t * panel_width);       // pairs t of 16 columns
    const __m512bh y1 = (__m512bh)_mm512_loadu_si512(panel + t * panel_width + 16);  // and of the next 16
    for (int r = 0; r < R; ++r) {
      const auto pair = static_cast<int>(x.data[r * x.row_step + t * x.pair_step]);  // row r's pair t
      const __m512bh x_pair = (__m512bh)_mm512_set1_epi32(pair);
      c[r][0] = _mm512_dpbf16_ps(c[r][0], x_pair, y0);  // c += x.odd·y.odd, then += x.even·y.even
      c[r][1] = _mm512_dpbf16_ps(c[r][1], x_pair, y1);
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(C + r * c_stride, lanes0, c[r][0]);
    _mm512_mask_storeu_ps(C + r * c_stride + 16, lanes1, c[r][1]);
  }
}

// Asks for the rows [from, to) of C's panel columns (two cache lines a row) to be brought into the fastest cache.
void prefetch_rows(const float* C, int64_t c_stride, int64_t from, int64_t to) {
  for (int64_t r = from; r < to; ++r) {
    _mm_prefetch(reinterpret_cast<const char*>(C + r * c_stride), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(C + r * c_stride + 16), _MM_HINT_T0);
  }
}

// Rows [0, rows) of C against one panel: tiles of 8 rows, then of 4, 2 and 1. A tile starts by loading its 8 rows
// of C, each a whole row of C after the last: the CPU does not guess that pattern, and nothing else can start until
// they arrive. So while a tile computes, the next tile's rows are asked for (prefetch_rows): on a 2-core Zen 5 that
// made the products at the base model's shapes about a quarter faster (docs/guide/performance.md).
void panel_pass(int64_t rows, int64_t pairs, PackedX x, const uint32_t* panel, float* C, int64_t c_stride,
                int64_t width) {
  const __mmask16 lanes0 = first_lanes(width), lanes1 = first_lanes(width - 16);
  int64_t i = 0;
  for (; i + tile_rows <= rows; i += tile_rows) {
    prefetch_rows(C, c_stride, i + tile_rows, std::min(rows, i + 2 * tile_rows));
    tile<tile_rows>(pairs, x.from_row(i), panel, C + i * c_stride, c_stride, lanes0, lanes1);
  }
  if (i + 4 <= rows) {
    tile<4>(pairs, x.from_row(i), panel, C + i * c_stride, c_stride, lanes0, lanes1);
    i += 4;
  }
  if (i + 2 <= rows) {
    tile<2>(pairs, x.from_row(i), panel, C + i * c_stride, c_stride, lanes0, lanes1);
    i += 2;
  }
  if (i < rows) tile<1>(pairs, x.from_row(i), panel, C + i * c_stride, c_stride, lanes0, lanes1);
}

// Scratch memory of the calling thread, grown to the largest product seen and reused.
uint32_t* scratch(std::vector<uint32_t>& buffer, int64_t size) {
  if (static_cast<int64_t>(buffer.size()) < size) buffer.resize(static_cast<size_t>(size));
  return buffer.data();
}

}  // namespace

void add_bf16_product_avx512(int64_t n, int64_t m, int64_t k, float* C, int64_t c_stride, const float* X,
                             int64_t x_stride, bool transpose_x, const float* Y, int64_t y_stride, bool transpose_y) {
  if (n == 0 || m == 0 || k == 0) return;
  const int64_t panel_count = (m + panel_width - 1) / panel_width;
  thread_local std::vector<uint32_t> panel_buffer, x_buffer;
  uint32_t* panels = scratch(panel_buffer, panel_count * pairs_per_block * panel_width);  // [panels, pairs, 32]
  uint32_t* x = scratch(x_buffer, std::min(n, row_block) * pairs_per_block);              // [rows, pairs]
  for (int64_t p0 = 0; p0 < k; p0 += depth_block) {                                       // 1. depth blocks, in order
    const int64_t kc = std::min(depth_block, k - p0), pairs = (kc + 1) / 2;
    pack_y(Y, y_stride, transpose_y, p0, kc, m, pairs, panels);  // 2. op(Y)[p0 : p0 + kc, :] as panels
    for (int64_t i0 = 0; i0 < n; i0 += row_block) {       // 3. a block of rows of C
      const int64_t rows = std::min(row_block, n - i0);
      const PackedX packed_x = pack_x(X, x_stride, transpose_x, i0, rows, p0, kc, x);
      for (int64_t q = 0; q < panel_count; ++q) {  // 4. C[i0 :, q·32 : q·32 + 32] += x · panel
        panel_pass(rows, pairs, packed_x, panels + q * pairs * panel_width, C + i0 * c_stride + q * panel_width,
                   c_stride, std::min(panel_width, m - q * panel_width));
      }
    }
  }
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // __x86_64__
