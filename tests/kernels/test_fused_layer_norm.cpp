// test_fused_layer_norm.cpp — the kernel fused_layer_norm (src/kernels/layer_norm.cpp) computes what the op
// layer_norm (src/autograd/ops/layer_norm.cpp) computes, forward and backward, when x's gradient arrives first
// and when it is added to an earlier one; and its bits do not depend on the thread count.
#include <doctest/doctest.h>
#include <omp.h>

#include <vector>

#include "autograd/ops.h"
#include "kernels/kernels.h"

using namespace attnlab;

namespace {

// One layer normalization of x [rows, d] with gradient R (loss = Σ y ⊙ R), by the op or by the kernel. With
// `used_twice`, x also feeds loss2 = Σ x ⊙ S first, so that x's gradient buffer holds S when the norm's ∂x arrives.
struct Run {
  std::vector<real> y, gx, ggamma, gbeta;
};
Run normalize(bool fused, bool used_twice, int64_t rows, int64_t d) {
  Generator gen(41);
  Tensor x = add_scalar(Tensor::randn({rows, d}, gen, real(2)), real(3)).detach().set_requires_grad(true);  // [rows, d]
  Tensor gamma = add_scalar(Tensor::randn({d}, gen, real(0.5)), real(1)).detach().set_requires_grad(true);  // [d]
  Tensor beta = Tensor::randn({d}, gen, real(0.5)).set_requires_grad(true);                                  // [d]
  const Tensor R = Tensor::randn({rows, d}, gen);                                                          // [rows, d]
  const Tensor S = Tensor::randn({rows, d}, gen);                                                          // [rows, d]
  Tensor y = fused ? fused_layer_norm(x, gamma, beta) : layer_norm(x, gamma, beta);                         // [rows, d]
  Tensor loss = sum(mul(y, R));                                                                            // [1]
  if (used_twice) loss = add(sum(mul(x, S)), loss);
  loss.backward();
  auto values = [](const real* p, int64_t n) { return std::vector<real>(p, p + n); };
  return {values(y.data(), y.numel()), values(x.grad(), x.numel()), values(gamma.grad(), d),
          values(beta.grad(), d)};
}

// Every number agrees to float rounding (relative 1e-4, with an absolute floor for tiny values).
void require_close(const std::vector<real>& a, const std::vector<real>& b, const char* what) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(what, " element ", i);
    REQUIRE(double(a[i]) == doctest::Approx(double(b[i])).epsilon(1e-4).scale(1e-3));
  }
}

}  // namespace

TEST_CASE("fused_layer_norm gives layer_norm's output and gradients, for a first and for an added ∂x") {
  for (bool used_twice : {false, true}) {
    CAPTURE(used_twice);
    const Run kernel = normalize(true, used_twice, 100, 24);     // 100 rows: 4 chunks of 32, the last partial
    const Run op = normalize(false, used_twice, 100, 24);
    CHECK(kernel.y == op.y);                                     // the same forward, bit for bit
    require_close(kernel.gx, op.gx, "dL/dx");
    require_close(kernel.ggamma, op.ggamma, "dL/dgamma");
    require_close(kernel.gbeta, op.gbeta, "dL/dbeta");
  }
}

TEST_CASE("fused_layer_norm gives the same bits with 1 and with 2 threads") {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const Run one = normalize(true, false, 300, 64);
  omp_set_num_threads(2);
  const Run two = normalize(true, false, 300, 64);
  omp_set_num_threads(threads);
  CHECK(one.y == two.y);
  CHECK(one.gx == two.gx);
  CHECK(one.ggamma == two.ggamma);
  CHECK(one.gbeta == two.gbeta);
}
