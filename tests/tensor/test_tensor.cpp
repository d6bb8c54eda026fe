// test_tensor.cpp — facts about tensors, shapes and the random generator.
#include <doctest/doctest.h>

#include "tensor/tensor.h"
#include "util/error.h"

using namespace attnlab;

TEST_CASE("a tensor is row-major: element (i, j, k) of [2, 3, 4] sits at (i*3 + j)*4 + k") {
  std::vector<real> values(24);
  for (int i = 0; i < 24; ++i) values[i] = static_cast<real>(i);
  Tensor t = Tensor::from_values({2, 3, 4}, values);
  CHECK(t.at({1, 2, 3}) == 23);
  CHECK(t.at({1, 0, 2}) == 14);
  CHECK(t.matrix().rows() == 6);   // [2·3, 4]
  CHECK(t.matrix()(4, 1) == 17);
}

TEST_CASE("shapes take 1 to 4 axes, negative axes count from the end, and bad ones are refused with a message") {
  Shape s{2, 3, 5};
  CHECK(s.numel() == 30);
  CHECK(s[-1] == 5);
  CHECK(s.normalize_axis(-3) == 0);
  CHECK(s.str() == "[2, 3, 5]");
  CHECK_THROWS_WITH_AS(s.normalize_axis(3), "axis 3 is out of range for a tensor of shape [2, 3, 5]", Error);
  CHECK_THROWS_AS(Shape({1, 2, 3, 4, 5}), Error);
  CHECK_THROWS_AS(Shape({2, -1}), Error);
}

TEST_CASE("from_values refuses a value count that does not match the shape, naming both") {
  CHECK_THROWS_WITH_AS(Tensor::from_values({2, 2}, {1, 2, 3}),
                       "Tensor::from_values: shape [2, 2] holds 4 numbers, but 3 were given", Error);
}

TEST_CASE("at() checks its indices and item() needs exactly one number") {
  Tensor t = Tensor::zeros({2, 3});
  CHECK_THROWS_AS(t.at({2, 0}), Error);
  CHECK_THROWS_AS(t.at({0}), Error);
  CHECK_THROWS_AS(t.item(), Error);
  CHECK(Tensor::full({1}, 7).item() == 7);
}

TEST_CASE("an empty Tensor handle is an error to read, not a crash") {
  Tensor t;
  CHECK_FALSE(t.defined());
  CHECK_THROWS_AS(t.shape(), Error);
}

TEST_CASE("the generator is reproducible, and a saved state resumes the exact same stream") {
  Generator a(42), b(42);
  for (int i = 0; i < 5; ++i) CHECK(a.normal() == b.normal());
  a.normal();  // leaves a spare Box–Muller normal inside the state
  std::string saved = a.state();
  std::vector<double> expected;
  for (int i = 0; i < 7; ++i) expected.push_back(i % 2 ? a.normal() : a.uniform());
  Generator c(0);
  c.set_state(saved);
  for (int i = 0; i < 7; ++i) CHECK((i % 2 ? c.normal() : c.uniform()) == expected[i]);
  CHECK_THROWS_AS(c.set_state("not a state"), Error);
}

TEST_CASE("a generator state is refused unless it is exactly what state() writes: no stray word, no odd flag") {
  Generator a(42);
  a.normal();
  const std::string saved = a.state();                      // 313 engine words, the flag 1, the spare normal
  const std::string engine = saved.substr(0, saved.rfind(' ', saved.rfind(' ') - 1));
  Generator b(0);
  CHECK_NOTHROW(b.set_state(saved));
  CHECK_NOTHROW(b.set_state(saved + "\n"));
  for (const std::string& bad : {saved + " 7", engine + " 2 0.5", engine + " 1 nan", engine + " 1", engine,
                                std::string("")}) {
    CAPTURE(bad.substr(bad.size() > 40 ? bad.size() - 40 : 0));
    CHECK_THROWS_WITH_AS(b.set_state(bad), doctest::Contains("not a random-generator state"), Error);
  }
  CHECK(b.state() == saved);                                // a refused state changes nothing
}

TEST_CASE("normal draws have mean 0 and standard deviation 1; integer draws stay in range") {
  Generator gen(7);
  double sum = 0, sum_sq = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    double z = gen.normal();
    sum += z;
    sum_sq += z * z;
  }
  CHECK(std::abs(sum / n) < 0.01);
  CHECK(std::abs(sum_sq / n - 1.0) < 0.01);
  for (int i = 0; i < 1000; ++i) {
    int64_t k = gen.integer(3, 8);
    CHECK((k >= 3 && k < 8));
  }
}

TEST_CASE("describe() shows the shape and the first values") {
  Tensor t = Tensor::from_values({2, 2}, {1, 2.5, -3, 4});
  CHECK(describe(t) == "[2, 2] [1, 2.5, -3, 4]");
  CHECK(describe(Tensor::zeros({10}), 2) == "[10] [0, 0, …]");
}
