// check.cpp — dropout_backward against the library's dropout, forward and backward.
//
// The library's side: x with requires_grad, y = dropout(x, p, gen) (src/autograd/ops/dropout.cpp) and L = Σ y ⊙ g,
// so that backward() leaves ∂L/∂y = g and x.grad is the ∂x the exercise asks for. The mask that forward drew is
// made again from a generator with the same seed (draw_dropout_key, then dropout_mask: the values m_i ∈
// {0, 1/(1 − p)}), and handed to yours as kept_i = 1 where m_i ≠ 0, else 0.
#include <cstdint>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "y_i = x_i · kept_i / (1 − p), so ∂x_i = g_i · kept_i / (1 − p): the forward's mask, and the survivors' scale "
    "1/(1 − p). The library's backward is the record() in src/autograd/ops/dropout.cpp.";
const std::string zero_hint =
    "Your ∂x is all zeros (the shipped stub): fill in the TODO in exercises/dropout_backward/exercise.cpp. ";

// The keep mask dropout(x, p, Generator(seed)) draws: 1 where x_i is kept, 0 where it is dropped.
Tensor kept_mask(const Shape& shape, real p, uint64_t seed) {
  Generator gen(seed);
  const uint64_t key = p > 0 ? draw_dropout_key(gen) : 0;                    // as dropout() draws it
  Tensor kept = Tensor::zeros(shape);                                        // [...]
  dropout_mask(key, 0, kept.numel(), p, kept.data());                        // m_i ∈ {0, 1/(1 − p)}
  for (real& k : kept.values()) k = k != 0 ? 1 : 0;
  return kept;
}

// The library's ∂x: y = dropout(x, p, Generator(seed)), L = Σ y ⊙ g, L.backward().
Tensor library_dx(const Tensor& g, real p, uint64_t seed) {
  Generator values(seed + 1);
  const Tensor x = Tensor::randn(g.shape(), values, 1, /*requires_grad=*/true);
  Generator gen(seed);
  sum(mul(dropout(x, p, gen), g)).backward();
  return Tensor::from_values(x.shape(), x.grad_values());
}

// g ⊙ (kept, or 1 − kept) · factor: the right ∂x and what the usual mistakes give.
Tensor masked(const Tensor& kept, const Tensor& g, real factor, bool inverted) {
  Tensor dx = Tensor::zeros(g.shape());
  for (int64_t i = 0; i < g.numel(); ++i) {
    const real k = inverted ? 1 - kept.data()[i] : kept.data()[i];
    dx.data()[i] = g.data()[i] * k * factor;
  }
  return dx;
}

std::vector<Mistake> usual_mistakes(const Tensor& kept, const Tensor& g, real p) {
  return {
      {"no_scale", "∂x is g ⊙ kept: the survivors' scale 1/(1 − p) is missing", masked(kept, g, 1, false),
       "the forward scaled every kept number by 1/(1 − p) (that keeps E[y_i] = x_i), so ∂y_i/∂x_i = kept_i / (1 − p): "
       "∂x_i = g_i · kept_i / (1 − p)."},
      {"scale_by_inverse_p", "∂x is g ⊙ kept / p: scaled by 1/p, the drop probability, not 1/(1 − p)",
       masked(kept, g, 1 / p, false),
       "p is the probability of DROPPING; a number survives with probability 1 − p, and the survivors are scaled "
       "by 1/(1 − p): ∂x_i = g_i · kept_i / (1 − p)."},
      {"scale_by_keep_probability", "∂x is g ⊙ kept · (1 − p): multiplied by 1 − p where the forward divided",
       masked(kept, g, 1 - p, false),
       "inverted dropout divides by 1 − p in the forward (y_i = x_i · kept_i / (1 − p)), so the backward divides "
       "too: ∂x_i = g_i · kept_i / (1 − p). (Multiplying by 1 − p is the old, non-inverted scheme's inference step.)"},
      {"mask_inverted", "∂x flows through the dropped numbers and not the kept ones: the mask is inverted",
       masked(kept, g, 1 / (1 - p), true),
       "kept_i = 1 marks a number the forward KEPT; a dropped one (kept_i = 0) passed nothing forward and gets "
       "nothing back: ∂x_i = g_i · kept_i / (1 − p)."},
  };
}

struct Case {
  std::string what;
  Shape shape;
  real p;
  uint64_t seed;
};

void check_case(const Case& c, bool first) {
  Generator gen(c.seed + 2);
  const Tensor g = Tensor::randn(c.shape, gen);                              // [...], ∂loss/∂y
  const Tensor kept = kept_mask(c.shape, c.p, c.seed);                       // [...], 1 kept, 0 dropped
  const Tensor expected = library_dx(g, c.p, c.seed);                        // [...]
  const Tensor yours = dropout_backward(kept, g, c.p);
  std::vector<std::string> input{"case: " + c.what,
                                 "p = " + number(c.p) + ", so 1/(1 − p) = " + number(1 / (1 - c.p))};
  for (const std::string& line : tensor_lines("kept", kept)) input.push_back(line);
  for (const std::string& line : tensor_lines("g", g)) input.push_back(line);
  if (first) diagnose(expected, yours, usual_mistakes(kept, g, c.p), input);
  expect_same("∂x", expected, yours, {1e-9, 1e-9}, input, all_zero(yours) ? zero_hint + hint : hint);
}

void check() {
  check_case({"x [3, 5], p = 0.25: a quarter dropped, the survivors scaled by 4/3", {3, 5}, 0.25, 4}, true);
  check_case({"x [2, 2, 6], p = 0.1: the Transformer's dropout; leading axes are just more numbers", {2, 2, 6}, 0.1, 5},
             false);
  check_case({"x [4, 8], p = 0.6: more dropped than kept", {4, 8}, 0.6, 6}, false);
  check_case({"x [2, 3], p = 0: nothing dropped, nothing scaled, ∂x = g", {2, 3}, 0, 7}, false);
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("dropout_backward", attnlab::exercises::hint, attnlab::exercises::check);
}
