// check.cpp — split_heads and merge_heads against the library's (src/attention/heads.cpp, which multi_head.cpp's
// project() and forward() call).
//
// The inputs are labelled: x[b, t, f] = 1000·b + 100·t + f, so that every number says where it came from and a
// head that got the wrong features shows which ones it got. The merge gets the library's split of such an x, so
// it must give x back. Then each of yours must carry a graph: L = Σ out ⊙ R (R fixed random weights) must send the
// same ∂x back through yours as through the library's.
#include <string>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "check.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "split: reshape x [B, T, d_model] to [B, T, h, d_k] (feature h·d_k + j becomes (h, j)), then permute it to "
    "[B, h, T, d_k] with the axes {0, 2, 1, 3}; merge: the same permute back, then reshape to [B, T, h·d_k]. "
    "The library's versions are split_heads and merge_heads in src/attention/heads.cpp.";
const std::string zero_hint =
    "Yours is all zeros (the shipped stub): fill in the TODOs in exercises/split_heads/exercise.cpp. ";

// x [B, T, d_model] with x[b, t, f] = 1000·b + 100·t + f.
Tensor labelled(int64_t B, int64_t T, int64_t d_model) {
  Tensor x = Tensor::zeros({B, T, d_model});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t f = 0; f < d_model; ++f) x.data()[(b * T + t) * d_model + f] = real(1000 * b + 100 * t + f);
  return x;
}

std::vector<Mistake> split_mistakes(const Tensor& x, int64_t heads) {
  const int64_t B = x.size(0), T = x.size(1), d_k = x.size(2) / heads;
  return {
      {"split_no_transpose", "yours is x reshaped to [B, h, T, d_k] with no permute: the numbers never moved",
       reshape(x, {B, heads, T, d_k}),
       "a reshape never moves a number, so [B, h, T, d_k] read straight from x gives head 0 the first T·d_k numbers "
       "of x (position 0's first features, then its next ones), not the slice [0, d_k) of every position. Reshape to "
       "[B, T, h, d_k] first (that splits each position's features), then permute(·, {0, 2, 1, 3}) to move h in "
       "front of T."},
      {"split_interleaved", "head h got the features h, h + heads, h + 2·heads, …: interleaved, not a slice",
       permute(reshape(x, {B, T, d_k, heads}), {0, 3, 1, 2}),
       "head h is the contiguous slice [h·d_k, (h + 1)·d_k) of the features: reshape to [B, T, h, d_k] (h before "
       "d_k), so that feature h·d_k + j lands at (h, j)."},
      {"split_heads_and_dk_swapped", "yours is [B, d_k, T, h]: d_k and h are swapped in the reshape",
       permute(reshape(x, {B, T, d_k, heads}), {0, 2, 1, 3}),
       "reshape to [B, T, heads, d_k] — the head first, then its d_k features — and permute to [B, h, T, d_k]."},
  };
}

std::vector<Mistake> merge_mistakes(const Tensor& heads_input) {
  const int64_t B = heads_input.size(0), h = heads_input.size(1), T = heads_input.size(2), d_k = heads_input.size(3);
  return {
      {"merge_no_transpose", "yours is [B, h, T, d_k] reshaped to [B, T, h·d_k] with no permute back",
       reshape(heads_input, {B, T, h * d_k}),
       "split moved h in front of T, so merge must move it back before the reshape: permute(x, {0, 2, 1, 3}) gives "
       "[B, T, h, d_k], and then reshape to [B, T, h·d_k] puts the heads side by side."},
  };
}

// Fails unless `yours` (computed from `input`) carries a graph that sends ∂L/∂input, L = Σ out ⊙ R, back as the
// library's `expected_out` does.
void expect_graph(const std::string& what, const Tensor& input, const Tensor& yours, const Tensor& library_input,
                  const Tensor& expected_out, const std::vector<std::string>& lines) {
  if (!yours.requires_grad()) {
    fail("your " + what + " has the right numbers but no graph: backward() cannot reach its input", lines,
         "build it from the ops reshape and permute (src/autograd/ops.h), not by writing numbers into a new tensor: "
         "each op records how to differentiate itself (src/autograd/graph.h), a tensor filled by hand records nothing.");
  }
  Generator gen(3);
  const Tensor R = Tensor::uniform(expected_out.shape(), gen, -1, 1);
  sum(mul(expected_out, R)).backward();
  sum(mul(yours, R)).backward();
  expect_same("∂L/∂input through your " + what, Tensor::from_values(input.shape(), library_input.grad_values()),
              Tensor::from_values(input.shape(), input.grad_values()), {1e-12, 1e-12}, lines,
              "the numbers are right, so the graph is not: is a step computed outside the ops? " + hint);
}

void check_case(int64_t B, int64_t T, int64_t heads, int64_t d_k, bool first) {
  const Tensor x = labelled(B, T, heads * d_k);                              // [B, T, d_model]
  std::vector<std::string> lines{"heads = " + std::to_string(heads) + ", d_k = " + std::to_string(d_k) +
                                 "; x[b, t, f] = 1000·b + 100·t + f (1203: batch 1, time 2, feature 3)"};
  for (const std::string& line : tensor_lines("x", x)) lines.push_back(line);

  const Tensor split_expected = attnlab::split_heads(x, heads);              // [B, h, T, d_k]
  const Tensor split_yours = exercises::split_heads(x, heads);
  if (first) diagnose(split_expected, split_yours, split_mistakes(x, heads), lines, {1e-12, 1e-12});
  expect_same("split_heads(x, " + std::to_string(heads) + ")", split_expected, split_yours, {1e-12, 1e-12}, lines,
              all_zero(split_yours) ? zero_hint + hint : hint);

  std::vector<std::string> merge_lines{"merge_heads of the library's split_heads(x, " + std::to_string(heads) +
                                       "), which must give x back"};
  for (const std::string& line : lines) merge_lines.push_back(line);
  const Tensor merge_yours = exercises::merge_heads(split_expected);         // [B, T, d_model]
  if (first) diagnose(x, merge_yours, merge_mistakes(split_expected), merge_lines, {1e-12, 1e-12});
  expect_same("merge_heads", x, merge_yours, {1e-12, 1e-12}, merge_lines, all_zero(merge_yours) ? zero_hint + hint : hint);

  const Tensor x_yours = x.detach().set_requires_grad(true), x_library = x.detach().set_requires_grad(true);
  expect_graph("split_heads", x_yours, exercises::split_heads(x_yours, heads), x_library,
               attnlab::split_heads(x_library, heads), lines);
  const Tensor h_yours = split_expected.detach().set_requires_grad(true);
  const Tensor h_library = split_expected.detach().set_requires_grad(true);
  expect_graph("merge_heads", h_yours, exercises::merge_heads(h_yours), h_library, attnlab::merge_heads(h_library),
               merge_lines);
}

void check() {
  check_case(/*B=*/1, /*T=*/2, /*heads=*/3, /*d_k=*/4, /*first=*/true);      // x [1, 2, 12] → [1, 3, 2, 4]
  check_case(2, 3, 2, 4, false);                                             // x [2, 3, 8] → [2, 2, 3, 4]
  check_case(2, 4, 6, 1, false);                                             // d_k = 1: a feature per head
  check_case(3, 2, 1, 5, false);                                             // one head: [B, 1, T, d_model]
}

}  // namespace
}  // namespace attnlab::exercises

int main() {
  return attnlab::exercises::run_check("split_heads", attnlab::exercises::hint, attnlab::exercises::check);
}
