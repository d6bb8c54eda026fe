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
//   2. op(Y)'s block is rounded and packed into panels of 32 columns: panel row t holds the pairs (2t, 2t+1) of
//      columns j0 … j0 + 31 — two vector registers, 128 bytes; a panel is 32 KB, read in order by the tiles.
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

constexpr int64_t depth_block = 512;  // numbers of the depth per block (even)
constexpr int64_t pairs_per_block = depth_block / 2;
constexpr int64_t row_block = 192;   // rows of C per pass over the panels
constexpr int64_t panel_width = 32;  // columns per panel: two registers of 16 lanes
constexpr int tile_rows = 8;         // 8 × 2 accumulators + 2 for Y + 1 for X: 19 of 32 registers

// A mask of the first `count` of 16 lanes (count may be ≤ 0 or > 16).
__mmask16 first_lanes(int64_t count) {
  if (count <= 0) return 0;
  return count >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << count) - 1);
}

// 16 pairs (even[l], odd[l]) as 16 lanes, each rounded to bfloat16: the even one in the low half.
__m512i pairs_of(__m512 even, __m512 odd) {
  const __m512i low = _mm512_cvtepu16_epi32((__m256i)_mm512_cvtneps_pbh(even));
  const __m512i high = _mm512_cvtepu16_epi32((__m256i)_mm512_cvtneps_pbh(odd));
  return _mm512_or_si512(low, _mm512_slli_epi32(high, 16));
}

// The pairs of `count` ≤ 32 consecutive floats (zeros past count): lane t = (v[2t], v[2t+1]).
__m512i pairs_along(const float* v, int64_t count) {
  const __m512 first = _mm512_maskz_loadu_ps(first_lanes(count), v);
  const __m512 second = _mm512_maskz_loadu_ps(first_lanes(count - 16), v + 16);
  return (__m512i)_mm512_cvtne2ps_pbh(second, first);  // bf16 element e is v[e]: low 16 from `first`
}

// 16 pairs across: lane l = (even_row[l], odd_row[l]), the first `count` lanes (zeros past it); a null odd_row is
// a row of zeros (the partner of an odd k's last number).
__m512i pairs_across(const float* even_row, const float* odd_row, int64_t count) {
  const __mmask16 lanes = first_lanes(count);
  const __m512 even = _mm512_maskz_loadu_ps(lanes, even_row);
  const __m512 odd = odd_row ? _mm512_maskz_loadu_ps(lanes, odd_row) : _mm512_setzero_ps();
  return pairs_of(even, odd);
}

// The 16 × 16 block of 32-bit lanes turned over: lane c of v[r] goes to lane r of v[c]. Three rounds of the
// usual interleaving: 32-bit lanes in pairs of rows, then 64-bit, then whole 128-bit quarters (twice).
void transpose_16x16(__m512i v[16]) {
  __m512i t[16];
  for (int i = 0; i < 16; i += 2) {  // t[i], t[i+1]: rows i and i+1 interleaved (columns 0, 1 and 2, 3 of a quarter)
    t[i] = _mm512_unpacklo_epi32(v[i], v[i + 1]);
    t[i + 1] = _mm512_unpackhi_epi32(v[i], v[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {  // v[i + c]: rows i … i + 3 of column c of each quarter
    v[i] = _mm512_unpacklo_epi64(t[i], t[i + 2]);
    v[i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 2]);
    v[i + 2] = _mm512_unpacklo_epi64(t[i + 1], t[i + 3]);
    v[i + 3] = _mm512_unpackhi_epi64(t[i + 1], t[i + 3]);
  }
  for (int c = 0; c < 4; ++c) {  // column c of quarter q ends in v[4q + c], rows 0 … 15 in order
    const __m512i even01 = _mm512_shuffle_i32x4(v[c], v[4 + c], 0x88);       // quarters 0, 2 of rows 0–3, 4–7
    const __m512i odd01 = _mm512_shuffle_i32x4(v[c], v[4 + c], 0xDD);        // quarters 1, 3
    const __m512i even23 = _mm512_shuffle_i32x4(v[8 + c], v[12 + c], 0x88);  // the same for rows 8–11, 12–15
    const __m512i odd23 = _mm512_shuffle_i32x4(v[8 + c], v[12 + c], 0xDD);
    t[c] = _mm512_shuffle_i32x4(even01, even23, 0x88);      // quarter 0
    t[8 + c] = _mm512_shuffle_i32x4(even01, even23, 0xDD);  // quarter 2
    t[4 + c] = _mm512_shuffle_i32x4(odd01, odd23, 0x88);    // quarter 1
    t[12 + c] = _mm512_shuffle_i32x4(odd01, odd23, 0xDD);   // quarter 3
  }
  for (int i = 0; i < 16; ++i) v[i] = t[i];
}

// The pairs t < pairs of depth p0 … p0 + kc − 1 of op(Y), columns 0 … m − 1, as panels of panel_width columns:
// panel q row t at panels + (q·pairs + t)·panel_width. Columns past m are zero.
void pack_y(const float* Y, int64_t y_stride, bool transpose_y, int64_t p0, int64_t kc, int64_t m, uint32_t* panels) {
  const int64_t pairs = (kc + 1) / 2, count = (m + panel_width - 1) / panel_width;
  for (int64_t q = 0; q < count; ++q) {
    uint32_t* panel = panels + q * pairs * panel_width;  // [pairs, 32]
    const int64_t j0 = q * panel_width, width = std::min(panel_width, m - j0);
    if (transpose_y) {  // Y [m, k]: a column of op(Y) is a row of Y; 16 rows of Y at a time, turned in registers
      for (int64_t h = 0; h < panel_width; h += 16) {
        for (int64_t t0 = 0; t0 < pairs; t0 += 16) {
          __m512i block[16];  // block[r] lane l: column j0 + h + r's pair t0 + l (zeros past m)
          for (int64_t r = 0; r < 16; ++r) {
            if (h + r >= width) {  // past m: no row of Y to read
              block[r] = _mm512_setzero_si512();
              continue;
            }
            block[r] = pairs_along(Y + (j0 + h + r) * y_stride + p0 + 2 * t0, kc - 2 * t0);
          }
          transpose_16x16(block);  // block[l] lane r: the same pair, now 16 columns' pair t0 + l a vector
          for (int64_t l = 0; l < std::min<int64_t>(16, pairs - t0); ++l) {
            _mm512_storeu_si512(panel + (t0 + l) * panel_width + h, block[l]);
          }
        }
      }
      continue;
    }
    for (int64_t t = 0; t < pairs; ++t) {  // Y [k, m]: rows p0 + 2t and p0 + 2t + 1
      const float* even = Y + (p0 + 2 * t) * y_stride + j0;
      const float* odd = 2 * t + 1 < kc ? even + y_stride : nullptr;
      for (int64_t h = 0; h < panel_width; h += 16) {
        _mm512_storeu_si512(panel + t * panel_width + h, pairs_across(even + h, odd ? odd + h : nullptr, width - h));
      }
    }
  }
}

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
    pack_y(Y, y_stride, transpose_y, p0, kc, m, panels);  // 2. op(Y)[p0 : p0 + kc, :] as panels
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
