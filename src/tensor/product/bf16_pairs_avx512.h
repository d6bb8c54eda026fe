// bf16_pairs_avx512.h — float32 numbers rounded to bfloat16 and laid out in pairs along the depth of a product,
// as both fast paths of the bfloat16 product read them: vdpbf16ps (bf16_product_avx512.cpp) and AMX's tdpbf16ps
// (bf16_product_amx.cpp). For those two files alone.
//
// Both instructions take a 32-bit lane as a pair of bfloat16 numbers (the even one of the depth in the low half)
// and add the pair's two products into a float32 sum. So op(Y) [k, m] is stored as panels of 32 columns whose row t
// holds the pairs (op(Y)[2t, j], op(Y)[2t + 1, j]) of the 32 columns — 128 bytes, two vector registers, or two
// tile rows of 16 columns — and op(X) pair by pair or row by row, as each path's file says.
//
// Everything here is compiled for AVX512_BF16 (the target pragma below) whatever the build's -march, and runs only
// after bf16_product.cpp has asked the CPU. A file that includes this one includes it before its own pragma.
#pragma once

#if defined(__x86_64__)

#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512bf16")
#endif

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace bf16_pairs {

constexpr int64_t panel_width = 32;  // columns of op(Y) per panel: two registers (or two tiles) of 16 lanes

// A mask of the first `count` of 16 lanes (count may be ≤ 0 or > 16).
inline __mmask16 first_lanes(int64_t count) {
  if (count <= 0) return 0;
  return count >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << count) - 1);
}

// 16 pairs (even[l], odd[l]) as 16 lanes, each rounded to bfloat16: the even one in the low half.
inline __m512i pairs_of(__m512 even, __m512 odd) {
  const __m512i low = _mm512_cvtepu16_epi32((__m256i)_mm512_cvtneps_pbh(even));
  const __m512i high = _mm512_cvtepu16_epi32((__m256i)_mm512_cvtneps_pbh(odd));
  return _mm512_or_si512(low, _mm512_slli_epi32(high, 16));
}

// The pairs of `count` ≤ 32 consecutive floats (zeros past count): lane t = (v[2t], v[2t+1]).
inline __m512i pairs_along(const float* v, int64_t count) {
  const __m512 first = _mm512_maskz_loadu_ps(first_lanes(count), v);
  const __m512 second = _mm512_maskz_loadu_ps(first_lanes(count - 16), v + 16);
  return (__m512i)_mm512_cvtne2ps_pbh(second, first);  // bf16 element e is v[e]: low 16 from `first`
}

// 16 pairs across: lane l = (even_row[l], odd_row[l]), the first `count` lanes (zeros past it); a null odd_row is
// a row of zeros (the partner of an odd k's last number).
inline __m512i pairs_across(const float* even_row, const float* odd_row, int64_t count) {
  const __mmask16 lanes = first_lanes(count);
  const __m512 even = _mm512_maskz_loadu_ps(lanes, even_row);
  const __m512 odd = odd_row ? _mm512_maskz_loadu_ps(lanes, odd_row) : _mm512_setzero_ps();
  return pairs_of(even, odd);
}

// The 16 × 16 block of 32-bit lanes turned over: lane c of v[r] goes to lane r of v[c]. Three rounds of the
// usual interleaving: 32-bit lanes in pairs of rows, then 64-bit, then whole 128-bit quarters (twice).
inline void transpose_16x16(__m512i v[16]) {
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
// panel q row t at panels + (q·panel_pairs + t)·panel_width, panel_pairs ≥ pairs. Columns past m, and rows
// pairs … panel_pairs − 1 (the tile path's padding to whole tiles), are zero.
inline void pack_y(const float* Y, int64_t y_stride, bool transpose_y, int64_t p0, int64_t kc, int64_t m,
                   int64_t panel_pairs, uint32_t* panels) {
  const int64_t pairs = (kc + 1) / 2, count = (m + panel_width - 1) / panel_width;
  for (int64_t q = 0; q < count; ++q) {
    uint32_t* panel = panels + q * panel_pairs * panel_width;  // [panel_pairs, 32]
    std::fill(panel + pairs * panel_width, panel + panel_pairs * panel_width, 0u);
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

}  // namespace bf16_pairs
}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // __x86_64__
