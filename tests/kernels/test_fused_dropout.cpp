// add_dropout and relu_dropout (src/kernels/fused_dropout.cpp) give the very bits of the two ops each
// replaces, forward and backward, and leave the generator where those two ops would.
#include <doctest/doctest.h>

#include "autograd/ops.h"
#include "kernels/kernels.h"
#include "util/error.h"

using namespace attnlab;

namespace {

void require_same_bits(const real* a, const real* b, int64_t n, const char* what) {
  for (int64_t i = 0; i < n; ++i) {
    INFO(what, " element ", i);
    REQUIRE(a[i] == b[i]);
  }
}

}  // namespace

TEST_CASE("add_dropout(x, s) is add(x, dropout(s)) bit for bit, forward and backward, and draws as dropout does") {
  Generator init(31);
  const Shape shape{4, 7, 40000};                                       // several parallel chunks
  for (real p : {real(0.1), real(0.5), real(0)}) {
    INFO("p ", p);
    Tensor x = Tensor::randn(shape, init).set_requires_grad(true), s = Tensor::randn(shape, init).set_requires_grad(true);
    Tensor x2 = x.detach().set_requires_grad(true), s2 = s.detach().set_requires_grad(true);
    Generator a(7), b(7);
    Tensor fused = add_dropout(x, s, p, a);
    Tensor reference = add(x2, dropout(s2, p, b));
    require_same_bits(fused.data(), reference.data(), fused.numel(), "y");
    CHECK(a.next_u64() == b.next_u64());                                // the generators are in step
    Tensor weights = Tensor::randn(shape, init);
    sum(mul(fused, weights)).backward();
    sum(mul(reference, weights)).backward();
    require_same_bits(x.grad(), x2.grad(), x.numel(), "dL/dx");
    require_same_bits(s.grad(), s2.grad(), s.numel(), "dL/ds");
  }
}

TEST_CASE("relu_dropout(h) is dropout(relu(h)) bit for bit, forward and backward, and draws as dropout does") {
  Generator init(32);
  const Shape shape{3, 50000};
  for (real p : {real(0.1), real(0)}) {
    INFO("p ", p);
    Tensor h = Tensor::randn(shape, init).set_requires_grad(true);
    Tensor h2 = h.detach().set_requires_grad(true);
    Generator a(9), b(9);
    Tensor fused = relu_dropout(h, p, a);
    Tensor reference = dropout(relu(h2), p, b);
    require_same_bits(fused.data(), reference.data(), fused.numel(), "y");
    CHECK(a.next_u64() == b.next_u64());
    Tensor weights = Tensor::randn(shape, init);
    sum(mul(fused, weights)).backward();
    sum(mul(reference, weights)).backward();
    require_same_bits(h.grad(), h2.grad(), h.numel(), "dL/dh");
  }
}

// The backward functions write an input's first gradient and add to one that exists (gradient_buffer.h), and
// add_dropout hands x its output's gradient buffer when x has none yet: cases where those paths meet — x that is
// also s, and an input whose gradient already holds another use's contribution.
TEST_CASE("the fused dropout ops' gradients add up with other uses of the same tensor, bit for bit") {
  Generator init(33);
  const Shape shape{2, 60000};
  Tensor weights = Tensor::randn(shape, init), other = Tensor::randn(shape, init);
  {
    INFO("add_dropout(x, x)");
    Tensor x = Tensor::randn(shape, init).set_requires_grad(true);
    Tensor x2 = x.detach().set_requires_grad(true);
    Generator a(5), b(5);
    sum(mul(add_dropout(x, x, real(0.3), a), weights)).backward();
    sum(mul(add(x2, dropout(x2, real(0.3), b)), weights)).backward();
    require_same_bits(x.grad(), x2.grad(), x.numel(), "dL/dx");
  }
  {
    INFO("add_dropout(x, s) with x and s also used elsewhere");
    Tensor x = Tensor::randn(shape, init).set_requires_grad(true), s = Tensor::randn(shape, init).set_requires_grad(true);
    Tensor x2 = x.detach().set_requires_grad(true), s2 = s.detach().set_requires_grad(true);
    Generator a(6), b(6);
    Tensor fused = add_dropout(x, s, real(0.2), a);
    Tensor reference = add(x2, dropout(s2, real(0.2), b));
    add(sum(mul(fused, weights)), add(sum(mul(x, other)), sum(mul(s, other)))).backward();
    add(sum(mul(reference, weights)), add(sum(mul(x2, other)), sum(mul(s2, other)))).backward();
    require_same_bits(x.grad(), x2.grad(), x.numel(), "dL/dx");
    require_same_bits(s.grad(), s2.grad(), s.numel(), "dL/ds");
  }
  {
    INFO("relu_dropout(h) with h also used elsewhere");
    Tensor h = Tensor::randn(shape, init).set_requires_grad(true);
    Tensor h2 = h.detach().set_requires_grad(true);
    Generator a(8), b(8);
    add(sum(mul(relu_dropout(h, real(0.1), a), weights)), sum(mul(h, other))).backward();
    add(sum(mul(dropout(relu(h2), real(0.1), b), weights)), sum(mul(h2, other))).backward();
    require_same_bits(h.grad(), h2.grad(), h.numel(), "dL/dh");
  }
}

TEST_CASE("the fused dropout ops refuse p outside [0, 1) and shapes that differ, naming the op") {
  Generator gen(1);
  Tensor x = Tensor::zeros({2, 3});
  CHECK_THROWS_WITH_AS(add_dropout(x, x, real(1), gen), doctest::Contains("add_dropout"), Error);
  CHECK_THROWS_WITH_AS(relu_dropout(x, real(-0.1), gen), doctest::Contains("relu_dropout"), Error);
  CHECK_THROWS_WITH_AS(add_dropout(x, Tensor::zeros({3, 2}), real(0.1), gen), doctest::Contains("[3, 2]"), Error);
}

TEST_CASE("band_dropout drops the very weights dropout() drops of the full matrix the band stands for") {
  // Full weights A [B=2, h=3, T=6, T=6] and their band [2, 3, 6, W=4] for the window [1, 2] (band column w of row
  // i is key j = i − 1 + w). Each band weight must come out as its full-matrix weight does, forward and backward,
  // bit for bit; so windowed attention drops the same weights on the fused and the paper's path.
  constexpr int64_t rows = 2 * 3 * 6, T = 6, W = 4, left = 1;
  Generator init(3);
  Tensor full = Tensor::randn({2, 3, T, T}, init, 1, true);
  Tensor band = Tensor::zeros({2, 3, T, W}, true);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t w = 0; w < W; ++w) {
      const int64_t j = r % T - left + w;
      if (j >= 0 && j < T) band.data()[r * W + w] = full.data()[r * T + j];
    }
  const real p = real(0.3);
  Generator a(11), b(11);
  Tensor full_dropped = dropout(full, p, a);                              // [2, 3, 6, 6]
  Tensor band_dropped = band_dropout(band, left, T, p, b);                // [2, 3, 6, 4]
  CHECK(a.next_u64() == b.next_u64());                                    // the same draws from the generator
  Tensor G = Tensor::randn({2, 3, T, T}, init);                           // ∂L/∂(full dropped)
  Tensor G_band = Tensor::zeros({2, 3, T, W});
  int64_t compared = 0, dropped = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t w = 0; w < W; ++w) {
      const int64_t j = r % T - left + w;
      if (j < 0 || j >= T) continue;
      G_band.data()[r * W + w] = G.data()[r * T + j];
      CHECK(band_dropped.data()[r * W + w] == full_dropped.data()[r * T + j]);
      dropped += band_dropped.data()[r * W + w] == 0;
      ++compared;
    }
  CHECK(compared == 2 * 3 * (3 + 4 + 4 + 4 + 3 + 2));                     // rows 0 … 5 see 3, 4, 4, 4, 3, 2 keys
  CHECK(dropped > 0);                                                     // some weights were dropped
  sum(mul(full_dropped, G)).backward();
  sum(mul(band_dropped, G_band)).backward();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t w = 0; w < W; ++w) {
      const int64_t j = r % T - left + w;
      if (j >= 0 && j < T) CHECK(band.grad()[r * W + w] == full.grad()[r * T + j]);
    }
}
