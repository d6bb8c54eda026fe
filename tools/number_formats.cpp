// number_formats.cpp — docs/course/01-tensor.md's number formats, as a program: what bfloat16 keeps and loses, and
// why the sum of a product stays in float32. Run: ./build/release/number_formats
//
// A float32 is 1 sign bit, 8 exponent bits, 23 mantissa bits; a bfloat16 is its upper 16 bits, rounded to nearest,
// ties to even (src/tensor/bfloat16.h):
//
//     float32   s eeeeeeee mmmmmmm mmmmmmmmmmmmmmmm        x = (−1)^s · 2^(e − 127) · 1.m
//     bfloat16  s eeeeeeee mmmmmmm                         8 significant bits: u = 2^−8 ≈ 0.0039
//
// It prints three things, the same numbers on every machine (seeded, scalar float32 arithmetic in a fixed order):
//   1. numbers rounded by hand: the bits kept, the bits cut off, which way they round and the error;
//   2. the three formats' range and precision, from their widths;
//   3. the relative error of sums of k products x_p · y_p against float64, three ways: float32 throughout;
//      operands in bfloat16 and sums in float32 (add_bf16_product, the emulated path: what the fast kernel
//      computes); operands and every partial sum in bfloat16 — for x, y of both signs (N(0, 1)) and positive
//      (U[0, 1), like attention's weights), then 4096 × (1 · 1) summed in bfloat16.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "tensor/bfloat16.h"
#include "tensor/product/bf16_product.h"
#include "tensor/random.h"

using namespace attnlab;

namespace {

// The n low bits of b, most significant first.
std::string binary(uint32_t b, int n) {
  std::string text;
  for (int i = n - 1; i >= 0; --i) text += ((b >> i) & 1u) ? '1' : '0';
  return text;
}

// One number by hand: its float32 fields, the 16 bits cut off against half of the last kept bit, the bfloat16.
void round_by_hand(const char* name, float x) {
  const uint32_t b = std::bit_cast<uint32_t>(x);
  const uint32_t cut = b & 0xFFFFu;
  const uint16_t kept = static_cast<uint16_t>(b >> 16);
  const bfloat16 r = to_bfloat16(x);
  const char* way = cut < 0x8000u   ? "below half: down"
                    : cut > 0x8000u ? "above half: up"
                    : (kept & 1u)   ? "exactly half, last kept bit 1: up to even"
                                    : "exactly half, last kept bit 0: stays (even)";
  std::printf("%s = %.9g   float32 0x%08X\n", name, static_cast<double>(x), b);
  std::printf("  sign %u  exponent %s  mantissa %s | %s\n", b >> 31, binary(b >> 23, 8).c_str(),
              binary(b >> 16, 7).c_str(), binary(cut, 16).c_str());
  std::printf("  cut off 0x%04X, %s\n", cut, way);
  const double value = static_cast<double>(to_float(r));
  std::printf("  bfloat16 0x%04X = %.9g", r.bits, value);
  if (std::isfinite(value) && x != 0) {
    std::printf("   relative error %.2g",
                std::fabs(value - static_cast<double>(x)) / std::fabs(static_cast<double>(x)));
  }
  std::printf("\n\n");
}

// A binary format from its widths: p significant bits (the leading 1 included), e exponent bits.
void print_format(const char* name, int p, int e) {
  const int emax = (1 << (e - 1)) - 1;
  const double largest = (2.0 - std::ldexp(1.0, 1 - p)) * std::ldexp(1.0, emax);
  const double smallest_normal = std::ldexp(1.0, 1 - emax);
  const double u = std::ldexp(1.0, -p);
  std::printf("  %-9s %2d %2d %2d   %-9.3g %-9.3g %-9.2g %.1f\n", name, e, p - 1, p, largest, smallest_normal, u,
              p * std::log10(2.0));
}

// Σ_p x_p · y_p three ways; each one's relative error |sum − exact| / |exact|, exact in float64.
struct SumErrors {
  std::vector<double> f32, bf16_operands, bf16_sums;
};

void add_sum_errors(const std::vector<float>& x, const std::vector<float>& y, SumErrors& errors) {
  const int64_t k = static_cast<int64_t>(x.size());
  double exact = 0;
  float f32 = 0, bf16_sums = 0;
  for (int64_t p = 0; p < k; ++p) {
    exact += static_cast<double>(x[p]) * static_cast<double>(y[p]);
    f32 += x[p] * y[p];                                                       // float32 throughout
    const float product = round_to_bfloat16(x[p]) * round_to_bfloat16(y[p]);  // exact: 8 × 8 bits fit in 24
    bf16_sums = round_to_bfloat16(bf16_sums + product);                       // every partial sum to 8 bits
  }
  float c = 0;  // [1, 1] = x [1, k] · y [k, 1]
  add_bf16_product(FloatMatrixMap(&c, 1, 1), ConstFloatMatrixMap(x.data(), 1, k), false,
                   ConstFloatMatrixMap(y.data(), k, 1), false, Bf16Path::emulated);
  auto error = [&](float sum) { return std::fabs(static_cast<double>(sum) - exact) / std::fabs(exact); };
  errors.f32.push_back(error(f32));
  errors.bf16_operands.push_back(error(c));
  errors.bf16_sums.push_back(error(bf16_sums));
}

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

double normal(Generator& gen) {
  return gen.normal();
}
double uniform(Generator& gen) {
  return gen.uniform();
}

// One line of the table: the median relative errors of `trials` sums of k products, x and y drawn by `draw`.
void print_sums(const char* what, int64_t k, double (*draw)(Generator&), Generator& gen) {
  const int trials = 101;
  SumErrors errors;
  for (int t = 0; t < trials; ++t) {
    std::vector<float> x(static_cast<size_t>(k)), y(static_cast<size_t>(k));
    for (float& v : x) v = static_cast<float>(draw(gen));
    for (float& v : y) v = static_cast<float>(draw(gen));
    add_sum_errors(x, y, errors);
  }
  std::printf("  %-10s %5lld   %-9.1e %-28.1e %.1e\n", what, static_cast<long long>(k), median(errors.f32),
              median(errors.bf16_operands), median(errors.bf16_sums));
}

void print_accumulation() {
  std::printf("the sum of k products x_p · y_p (seed 1): the median of 101 sums' relative error against float64\n");
  std::printf("  %-10s %5s   %-9s %-28s %s\n", "x, y", "k", "float32", "bf16 operands, float32 sums",
              "bf16 operands, bf16 sums");
  Generator gen(1);
  for (int64_t k : {16, 256, 4096}) print_sums("N(0, 1)", k, normal, gen);
  for (int64_t k : {16, 256, 4096}) print_sums("U[0, 1)", k, uniform, gen);
  float f32 = 0, bf16_sums = 0;
  for (int p = 0; p < 4096; ++p) {
    f32 += 1.0f;
    bf16_sums = round_to_bfloat16(bf16_sums + 1.0f);
  }
  std::printf("\n4096 × (1 · 1): float32 sums %g, bfloat16 sums %g (from 256 on, the gap between bfloat16s is 2:\n",
              static_cast<double>(f32), static_cast<double>(bf16_sums));
  std::printf("256 + 1 is a tie between 256 and 258, and rounds to the even one, 256, every time)\n");
}

}  // namespace

int main() {
  std::printf("== rounding to bfloat16 by hand: keep the upper 16 bits, round on the 16 cut off ==\n\n");
  round_by_hand("pi", 3.14159265f);
  round_by_hand("0.1", 0.1f);
  round_by_hand("1 + 2^-8", 1.00390625f);
  round_by_hand("1 + 3 * 2^-8", 1.01171875f);
  round_by_hand("-1000.7", -1000.7f);
  round_by_hand("largest float32", std::bit_cast<float>(0x7F7FFFFFu));
  round_by_hand("1e-40 (subnormal)", 1e-40f);

  std::printf("== the formats, from their widths ==\n\n");
  std::printf("  %-9s %2s %2s %2s   %-9s %-9s %-9s %s\n", "format", "e", "m", "p", "largest", "smallest", "u",
              "digits");
  print_format("float32", 24, 8);
  print_format("bfloat16", 8, 8);
  print_format("float16", 11, 5);
  std::printf("  (e exponent bits, m mantissa bits stored, p = m + 1 significant bits, smallest normal number,\n");
  std::printf("   u = 2^-p the unit roundoff, digits = p · log10 2)\n\n");

  std::printf("== why the sums of a product stay in float32 ==\n\n");
  print_accumulation();
}
