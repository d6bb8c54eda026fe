// bf16_product_amx.cpp — the tile path of the bfloat16 product: C += op(X) · op(Y) by AMX's tdpbf16ps.
//
// Sapphire Rapids and later Xeons have, beside the vector registers, eight tile registers of 16 rows × 64 bytes and
// a unit that multiplies them (Intel SDM, "Intel Advanced Matrix Extensions"; the intrinsic _tile_dpbf16ps(c, a, b)):
//
//     C [16, 16] float32 += A [16, 32] bfloat16 · B [32, 16] bfloat16         one instruction, 8,192 multiply-adds
//
// against 32 for a vdpbf16ps. On those Xeons vdpbf16ps runs at float32's rate (one a cycle, where two float32 FMAs
// go), so only the tiles make bfloat16 faster than float32 there. B is stored in pairs along the depth: tile row t
// holds (B[2t, j], B[2t + 1, j]) for 16 columns j — a vdpbf16ps panel row's layout (bf16_pairs_avx512.h), so a panel
// of 32 columns is two B tiles side by side, 128 bytes a row. A is stored row by row: a tile row is 16 pairs of one
// row of op(X).
//
// The plan is the vector path's (bf16_product_avx512.cpp), with tiles for registers:
//   1. the depth is cut into blocks of 512 (256 pairs: 16 steps of 16 pairs);
//   2. op(Y)'s block is rounded and packed into panels of 32 columns (pack_y), its pairs padded with zero rows to
//      a multiple of 16;
//   3. the rows of C go 192 at a time; op(X)'s block for them is rounded and packed row by row (pack_a), rows padded
//      with zeros to a multiple of 32 and pairs to a multiple of 16, so every tile loaded is whole;
//   4. a block of 32 × 32 of C is four C tiles (tiles 0–3). Each step loads two A tiles (4, 5: rows 0–15 and 16–31)
//      and two B tiles (6, 7: columns 0–15 and 16–31) and does four tdpbf16ps. A block at C's edge is computed in a
//      zero-padded 32 × 32 copy and copied back.
// Each C[i, j] is one chain over the depth, block after block, however the rows are cut among threads.
//
// What this path promises, against the emulated one (bf16_product.h): the same rounded operands (vcvtneps2bf16,
// round to nearest even, subnormal floats read as zero), exact products, float32 sums, subnormals flushed; but the
// order in which one tdpbf16ps adds its 32 products into C is the hardware's (the SDM writes one order and does not
// promise it), so the bits may differ from the emulated path's by float32 sums' rounding alone:
//     |C_tiles − C_emulated| ≤ 2γ_k · Σ_p |x̂_p · ŷ_p|        x̂, ŷ the rounded operands, γ_k = k·2^−24/(1 − k·2^−24)
// — far inside the bfloat16 rounding's own bound. tests/tensor/test_bf16_product.cpp checks it, and the same bits on
// one thread and on two.
//
// Linux lets a process use the tiles (8 KB of state a thread, saved on every switch) only after it asks
// (request_amx_tiles, once); a thread must load the tiles' shapes (_tile_loadconfig) before it uses them, which each
// call does, and gives them back (_tile_release) when it ends. Off x86-64 (the browser build) this file is empty.
#include "tensor/product/bf16_product_amx.h"

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "tensor/product/bf16_pairs_avx512.h"

// GCC compiles what follows for these instructions by its target pragma; clang (the fuzz build) ignores that
// pragma and takes the same target as an attribute on every function below.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16")
#endif

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

using namespace bf16_pairs;  // pairs_along, pairs_across, transpose_16x16, pack_y, panel_width

constexpr int64_t depth_block = 512;  // numbers of the depth per block (a multiple of 32: whole tiles of pairs)
constexpr int64_t pairs_per_block = depth_block / 2;
constexpr int64_t row_block = 192;  // rows of C per pass over the panels (a multiple of 32)
constexpr int64_t tile_pairs = 16;  // pairs in a tile row: 64 bytes
constexpr int64_t block_rows = 32;  // rows of C in a block: two tiles

int64_t round_up(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The tile registers' shapes (the SDM's "palette 1" layout of the 64 bytes _tile_loadconfig reads): all eight
// 16 rows × 64 bytes — a C tile 16 × 16 floats, an A tile 16 rows × 16 pairs, a B tile 16 pairs × 16 columns.
struct alignas(64) TileShapes {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t bytes_per_row[16] = {};
  uint8_t rows[16] = {};
};

void configure_tiles() {
  TileShapes shapes;
  for (int t = 0; t < 8; ++t) {
    shapes.bytes_per_row[t] = 64;
    shapes.rows[t] = 16;
  }
  _tile_loadconfig(&shapes);
}

// op(X)[i0 … i0 + rows − 1, p0 … p0 + kc − 1] in pairs, row by row: row r's pair t at packed[r · pairs16 + t];
// rows up to a multiple of 32 and pairs up to pairs16 (a multiple of 16) are zero. When op(X) = Xᵀ a row of op(X)
// is a column of X: 16 rows' pair t is one vector read across X's rows 2t and 2t + 1 (pairs_across), and 16 such
// vectors turned over in registers (transpose_16x16) are 16 rows' 16 pairs, each stored whole.
void pack_a(const float* X, int64_t x_stride, bool transpose_x, int64_t i0, int64_t rows, int64_t p0, int64_t kc,
            int64_t pairs16, uint32_t* packed) {
  const int64_t padded_rows = round_up(rows, block_rows), pairs = (kc + 1) / 2;
  if (!transpose_x) {  // X [n, k]: a row of op(X) is a row of X
    for (int64_t r = 0; r < padded_rows; ++r) {
      const float* row = X + (i0 + std::min(r, rows - 1)) * x_stride + p0;
      for (int64_t t = 0; t < pairs16; t += tile_pairs) {  // 16 pairs a store (zeros past kc, and past the rows)
        const __m512i v = r < rows ? pairs_along(row + 2 * t, kc - 2 * t) : _mm512_setzero_si512();
        _mm512_storeu_si512(packed + r * pairs16 + t, v);
      }
    }
    return;
  }
  for (int64_t r0 = 0; r0 < padded_rows; r0 += 16) {  // X [k, n]: 16 columns of X at a time
    for (int64_t t0 = 0; t0 < pairs16; t0 += tile_pairs) {
      __m512i block[16];  // block[l] lane r: row r0 + r's pair t0 + l
      for (int64_t l = 0; l < 16; ++l) {
        const int64_t t = t0 + l;
        if (t >= pairs || r0 >= rows) {
          block[l] = _mm512_setzero_si512();
          continue;
        }
        const float* even = X + (p0 + 2 * t) * x_stride + i0 + r0;
        block[l] = pairs_across(even, 2 * t + 1 < kc ? even + x_stride : nullptr, rows - r0);
      }
      transpose_16x16(block);  // block[r] lane l: row r0 + r's pair t0 + l
      for (int64_t r = 0; r < 16; ++r) _mm512_storeu_si512(packed + (r0 + r) * pairs16 + t0, block[r]);
    }
  }
}

// C[0 … 31, 0 … 31] (rows c_stride floats apart) += rows 0 … 31 of the packed op(X) (a, rows a_pairs pairs apart)
// times a panel, over pairs16 pairs: the four C tiles stay in their registers for the whole depth.
void block_32x32(int64_t pairs16, const uint32_t* a, int64_t a_pairs, const uint32_t* panel, float* C,
                 int64_t c_stride) {
  const int64_t c_bytes = c_stride * 4, a_bytes = a_pairs * 4, panel_bytes = panel_width * 4;
  _tile_loadd(0, C, c_bytes);                       // C rows 0–15, columns 0–15
  _tile_loadd(1, C + 16, c_bytes);                  //   rows 0–15, columns 16–31
  _tile_loadd(2, C + 16 * c_stride, c_bytes);       //   rows 16–31, columns 0–15
  _tile_loadd(3, C + 16 * c_stride + 16, c_bytes);  //   rows 16–31, columns 16–31
  for (int64_t t = 0; t < pairs16; t += tile_pairs) {
    _tile_loadd(4, a + t, a_bytes);                             // A rows 0–15, pairs t … t + 15
    _tile_loadd(5, a + 16 * a_pairs + t, a_bytes);              //   rows 16–31
    _tile_loadd(6, panel + t * panel_width, panel_bytes);       // B pairs t … t + 15, columns 0–15
    _tile_loadd(7, panel + t * panel_width + 16, panel_bytes);  //   columns 16–31
    _tile_dpbf16ps(0, 4, 6);                                    // C tile += A tile · B tile
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, C, c_bytes);
  _tile_stored(1, C + 16, c_bytes);
  _tile_stored(2, C + 16 * c_stride, c_bytes);
  _tile_stored(3, C + 16 * c_stride + 16, c_bytes);
}

// The same for a block at C's edge, `rows` ≤ 32 by `width` ≤ 32: in a zero-padded copy, copied back.
void edge_block(int64_t pairs16, const uint32_t* a, int64_t a_pairs, const uint32_t* panel, float* C, int64_t c_stride,
                int64_t rows, int64_t width) {
  alignas(64) float copy[block_rows * panel_width] = {};  // [32, 32]
  for (int64_t r = 0; r < rows; ++r) std::memcpy(copy + r * panel_width, C + r * c_stride, sizeof(float) * width);
  block_32x32(pairs16, a, a_pairs, panel, copy, panel_width);
  for (int64_t r = 0; r < rows; ++r) std::memcpy(C + r * c_stride, copy + r * panel_width, sizeof(float) * width);
}

// Scratch memory of the calling thread, grown to the largest product seen and reused.
uint32_t* scratch(std::vector<uint32_t>& buffer, int64_t size) {
  if (static_cast<int64_t>(buffer.size()) < size) buffer.resize(static_cast<size_t>(size));
  return buffer.data();
}

}  // namespace

bool request_amx_tiles() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const bool amx_bf16 = edx & (1u << 22), amx_tile = edx & (1u << 24);
  if (!amx_bf16 || !amx_tile || !__builtin_cpu_supports("avx512bf16")) return false;  // (packing uses AVX512_BF16)
  unsigned xcr0_low = 0, xcr0_high = 0;  // XCR0: which register states the operating system saves
  __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  const unsigned tile_states = (1u << 17) | (1u << 18);  // XTILECFG, XTILEDATA
  if ((xcr0_low & tile_states) != tile_states) return false;
  constexpr long arch_req_xcomp_perm = 0x1023, xfeature_xtiledata = 18;  // <asm/prctl.h>, Linux ≥ 5.16
  return syscall(SYS_arch_prctl, arch_req_xcomp_perm, xfeature_xtiledata) == 0;
}

void add_bf16_product_amx(int64_t n, int64_t m, int64_t k, float* C, int64_t c_stride, const float* X, int64_t x_stride,
                          bool transpose_x, const float* Y, int64_t y_stride, bool transpose_y) {
  if (n == 0 || m == 0 || k == 0) return;
  const int64_t panel_count = (m + panel_width - 1) / panel_width;
  thread_local std::vector<uint32_t> panel_buffer, a_buffer;
  uint32_t* panels = scratch(panel_buffer, panel_count * pairs_per_block * panel_width);  // [panels, pairs, 32]
  uint32_t* a = scratch(a_buffer, round_up(std::min(n, row_block), block_rows) * pairs_per_block);  // [rows, pairs]
  configure_tiles();
  for (int64_t p0 = 0; p0 < k; p0 += depth_block) {  // 1. depth blocks, in order
    const int64_t kc = std::min(depth_block, k - p0), pairs16 = round_up((kc + 1) / 2, tile_pairs);
    pack_y(Y, y_stride, transpose_y, p0, kc, m, pairs16, panels);  // 2. op(Y)[p0 : p0 + kc, :] as panels
    for (int64_t i0 = 0; i0 < n; i0 += row_block) {                // 3. a block of rows of C
      const int64_t rows = std::min(row_block, n - i0);
      pack_a(X, x_stride, transpose_x, i0, rows, p0, kc, pairs16, a);
      for (int64_t q = 0; q < panel_count; ++q) {  // 4. C[i0 :, q·32 : q·32 + 32] += a · panel, 32 rows a block
        const uint32_t* panel = panels + q * pairs16 * panel_width;
        const int64_t width = std::min(panel_width, m - q * panel_width);
        for (int64_t r0 = 0; r0 < rows; r0 += block_rows) {
          float* c = C + (i0 + r0) * c_stride + q * panel_width;
          if (r0 + block_rows <= rows && width == panel_width) {
            block_32x32(pairs16, a + r0 * pairs16, pairs16, panel, c, c_stride);
          } else {
            edge_block(pairs16, a + r0 * pairs16, pairs16, panel, c, c_stride, std::min(block_rows, rows - r0), width);
          }
        }
      }
    }
  }
  _tile_release();
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#endif  // __x86_64__
