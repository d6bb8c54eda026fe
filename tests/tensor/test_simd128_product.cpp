// test_simd128_product.cpp — natively there is no simd128 product (src/tensor/product/simd128_product.h: the browser
// build's alone): model.gemm: simd128 is refused before any product runs, naming the key and what to use, and auto
// stays the packed GEMM. That the simd128 product agrees with the packed one is checked where it exists, in the
// browser: tests/web/simd128_browser_test.py.
#include <doctest/doctest.h>

#include <algorithm>

#include "tensor/product/product.h"
#include "tensor/product/simd128_product.h"

using namespace attnlab;

TEST_CASE("natively model.gemm: simd128 is refused, naming the key, and auto is the packed GEMM") {
  CHECK_FALSE(simd128_available());
  const std::vector<Gemm> gemms = built_gemms();
  CHECK(std::find(gemms.begin(), gemms.end(), Gemm::simd128) == gemms.end());
  CHECK(resolve_gemm(Gemm::automatic) == Gemm::packed);
  CHECK_THROWS_WITH(resolve_gemm(Gemm::simd128, "model.gemm"),
                    doctest::Contains("model.gemm: simd128: the product backend is WebAssembly's alone"));
  CHECK(choice_named<Gemm>("simd128") == Gemm::simd128);
  CHECK(name_of(Gemm::automatic) == "auto");
}
