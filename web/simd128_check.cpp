// simd128_check.cpp — the simd128 product agrees with the packed GEMM it stands beside, checked where it runs: in
// the browser build (the doctest suite is native, and natively there is no simd128 product to check).
//
// attnlab_simd128_check() multiplies random matrices, C += op(X) · op(Y), through add_product (product.h) with
// model.gemm packed and with simd128, for every transpose and for ragged sizes (not multiples of the 8-column
// panels or the 4-row tiles; deeper than one 256-deep block) starting from the same random C, and reports
//   "same_bits"   whether the two gave the very same bits on every shape (simd128_product.cpp says why they must)
//   "eigen_error" the largest |simd128 − Eigen's GEMM| / (1 + |Eigen's|): the definition, to float rounding
//   "timing"      per backend, the toy translator's shapes timed (a training step's large products, one thread):
//                 each shape's fastest of R runs and its GFLOP/s, and their sum
// tests/web/simd128_browser_test.py calls it in headless Chromium. A plain check, not a benchmark: the times are
// for a reader who wants to see the tiles' gain, once, in the page's own engine.
#include <emscripten.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tensor/product/product.h"
#include "tensor/product/simd128_product.h"
#include "tensor/random.h"
#include "util/error.h"

namespace attnlab {
namespace {

struct ProductShape {
  int64_t n, k, m;
  bool transpose_x, transpose_y;
};

// C [n, m] += op(X) · op(Y) with `gemm`; X and Y as stored ([k, n] when transpose_x, likewise Y).
void add_to(const ProductShape& s, const std::vector<real>& x, const std::vector<real>& y, std::vector<real>& c,
            Gemm gemm) {
  add_product(MatrixMap(c.data(), s.n, s.m),
              ConstMatrixMap(x.data(), s.transpose_x ? s.k : s.n, s.transpose_x ? s.n : s.k), s.transpose_x,
              ConstMatrixMap(y.data(), s.transpose_y ? s.m : s.k, s.transpose_y ? s.k : s.m), s.transpose_y, gemm);
}

// `start` + op(X) · op(Y) with `gemm`.
std::vector<real> product(const ProductShape& s, const std::vector<real>& x, const std::vector<real>& y,
                          const std::vector<real>& start, Gemm gemm) {
  std::vector<real> c = start;
  add_to(s, x, y, c, gemm);
  return c;
}

std::vector<real> random_numbers(int64_t count, Generator& generator) {
  std::vector<real> numbers(static_cast<size_t>(count));
  for (real& number : numbers) number = static_cast<real>(generator.normal());
  return numbers;
}

// One shape: {"same_bits": …, "eigen_error": …} of simd128 against packed and against Eigen.
nlohmann::json compare(const ProductShape& s, Generator& generator) {
  const std::vector<real> x = random_numbers(s.n * s.k, generator), y = random_numbers(s.k * s.m, generator);
  const std::vector<real> start = random_numbers(s.n * s.m, generator);
  const std::vector<real> fast = product(s, x, y, start, Gemm::simd128);
  const std::vector<real> packed = product(s, x, y, start, Gemm::packed);
  const std::vector<real> eigen = product(s, x, y, start, Gemm::eigen);
  double eigen_error = 0;
  for (size_t i = 0; i < fast.size(); ++i) {
    eigen_error = std::max(eigen_error, std::abs(double(fast[i]) - eigen[i]) / (1 + std::abs(double(eigen[i]))));
  }
  return {{"shape", {s.n, s.k, s.m, s.transpose_x, s.transpose_y}},
          {"same_bits", fast == packed},
          {"eigen_error", eigen_error}};
}

// A toy-en-fr training step's large products, timed with `gemm`: the projections' forward, input gradient and
// weight gradient ([3000, 128] · [128, 128]ᵀ and its two transposes) and the feed-forward's first layer
// ([3000, 128] · [128, 512]ᵀ and its two transposes). Each shape runs `repeats` times and keeps its fastest time
// (the machine may be shared: the fastest is the one least disturbed) → {"milliseconds": Σ of the fastest,
// "shapes": [{"shape", "milliseconds", "gflops"}]}: one step's worth of these products, and each one's rate
// (2·n·k·m floating-point operations over its fastest time).
nlohmann::json toy_step_timing(Gemm gemm, int repeats, Generator& generator) {
  const std::vector<ProductShape> shapes{{3000, 128, 128, false, true},  {3000, 128, 128, false, false},
                                         {128, 3000, 128, true, false},  {3000, 128, 512, false, true},
                                         {3000, 512, 128, false, false}, {512, 3000, 128, true, false}};
  nlohmann::json timing = {{"milliseconds", 0.0}, {"shapes", nlohmann::json::array()}};
  for (const ProductShape& s : shapes) {
    const std::vector<real> x = random_numbers(s.n * s.k, generator), y = random_numbers(s.k * s.m, generator);
    std::vector<real> c(static_cast<size_t>(s.n * s.m), real(0));  // C += …, R times: only the time matters
    double fastest = 1e300;
    for (int r = 0; r < repeats; ++r) {
      const auto begin = std::chrono::steady_clock::now();
      add_to(s, x, y, c, gemm);
      fastest = std::min(fastest,
                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count());
    }
    timing["milliseconds"] = timing["milliseconds"].get<double>() + fastest;
    timing["shapes"].push_back({{"shape", {s.n, s.k, s.m, s.transpose_x, s.transpose_y}},
                                {"milliseconds", fastest},
                                {"gflops", 2.0 * s.n * s.k * s.m / (fastest * 1e6)}});
  }
  return timing;
}

}  // namespace
}  // namespace attnlab

extern "C" {

// {"repeats": R} (the timing rounds; 0 skips the timing) → {"available", "description", "shapes": [...],
// "same_bits", "eigen_error", "timing": {"packed": toy_step_timing, "simd128": …}} or {"error": …}.
EMSCRIPTEN_KEEPALIVE const char* attnlab_simd128_check(const char* request_text) {
  using namespace attnlab;
  static std::string answer;
  try {
    const nlohmann::json request = nlohmann::json::parse(request_text);
    const int repeats = request.value("repeats", 0);
    if (repeats < 0 || repeats > 100) throw Error("\"repeats\" must be 0 to 100, not " + std::to_string(repeats));
    nlohmann::json result = {{"available", simd128_available()}, {"description", simd128_description()}};
    Generator generator(7);
    bool same_bits = true;
    double eigen_error = 0;
    const std::vector<ProductShape> shapes{{16, 16, 16, false, false},   {37, 300, 45, false, true},
                                           {61, 19, 83, true, false},    {258, 513, 29, true, true},
                                           {300, 128, 131, false, true}, {23, 700, 17, false, false}};
    for (const ProductShape& s : shapes) {
      const nlohmann::json one = compare(s, generator);
      same_bits = same_bits && one["same_bits"].get<bool>();
      eigen_error = std::max(eigen_error, one["eigen_error"].get<double>());
      result["shapes"].push_back(one);
    }
    result["same_bits"] = same_bits;
    result["eigen_error"] = eigen_error;
    if (repeats > 0) {
      result["timing"] = {{"packed", toy_step_timing(Gemm::packed, repeats, generator)},
                          {"simd128", toy_step_timing(Gemm::simd128, repeats, generator)}};
    }
    answer = result.dump();
  } catch (const std::exception& e) {
    answer = nlohmann::json{{"error", e.what()}}.dump();
  }
  return answer.c_str();
}

}  // extern "C"
