// add_dropout and relu_dropout (src/autograd/ops/fused_dropout.cpp) give the very bits of the two ops each
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

TEST_CASE("the fused dropout ops refuse p outside [0, 1) and shapes that differ, naming the op") {
  Generator gen(1);
  Tensor x = Tensor::zeros({2, 3});
  CHECK_THROWS_WITH_AS(add_dropout(x, x, real(1), gen), doctest::Contains("add_dropout"), Error);
  CHECK_THROWS_WITH_AS(relu_dropout(x, real(-0.1), gen), doctest::Contains("relu_dropout"), Error);
  CHECK_THROWS_WITH_AS(add_dropout(x, Tensor::zeros({3, 2}), real(0.1), gen), doctest::Contains("[3, 2]"), Error);
}
