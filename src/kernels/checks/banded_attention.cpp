// checks/banded_attention.cpp — gradient checks for the band products of windowed attention
// (kernels/banded_attention.cpp: band_scores, band_mix, band_dropout).
//
// Cases cover a window inside the sequence (both ends of the band fall off the sequence for the first and last
// queries), a one-sided causal window, a window wider than the sequence (every key in every row), and queries and
// keys of different lengths (cross-attention). Columns whose key does not exist pass no gradient; the checker
// sees that as a zero derivative on both sides. (The whole windowed module — band products, band mask and
// softmax together — is checked as "attention.window" in checks/attention_softmax.cpp; tests/kernels/f64_banded_attention.cpp
// proves it equals the masked full matrix.)
#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "kernels/checks.h"
#include "kernels/kernels.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// band_scores of Q [2, 2, Tq, 3] and K [2, 2, Tk, 3].
GradcheckCase scores_case(std::string what, int64_t Tq, int64_t Tk, int64_t left, int64_t right) {
  return {"band_scores", std::move(what),
          [Tq, Tk](Generator& gen) {
            return std::vector<Tensor>{Tensor::randn({2, 2, Tq, 3}, gen), Tensor::randn({2, 2, Tk, 3}, gen)};
          },
          [left, right](const std::vector<Tensor>& in) { return band_scores(in[0], in[1], left, right); }};
}

// band_mix of weights [2, 2, Tq, W] and V [2, 2, Tk, 3].
GradcheckCase mix_case(std::string what, int64_t Tq, int64_t Tk, int64_t left, int64_t W) {
  return {"band_mix", std::move(what),
          [Tq, Tk, W](Generator& gen) {
            return std::vector<Tensor>{Tensor::uniform({2, 2, Tq, W}, gen, 0, 1), Tensor::randn({2, 2, Tk, 3}, gen)};
          },
          [left](const std::vector<Tensor>& in) { return band_mix(in[0], in[1], left); }};
}

}  // namespace

std::vector<GradcheckCase> banded_attention_checks() {
  std::vector<GradcheckCase> cases{
      scores_case("window [1, 1], T 5", 5, 5, 1, 1),
      scores_case("causal window [2, 0], T 5", 5, 5, 2, 0),
      scores_case("window [4, 4] wider than T 3", 3, 3, 4, 4),
      scores_case("cross Tq 3, Tk 6, window [0, 3]", 3, 6, 0, 3),
      mix_case("window [1, 1], T 5", 5, 5, 1, 3),
      mix_case("causal window [2, 0], T 5", 5, 5, 2, 3),
      mix_case("cross Tq 4, Tk 2, window [1, 1]", 4, 2, 1, 3),
  };
  // band_dropout: a band [2, 2, 5, 3] (left 1, 5 keys) with a fresh generator of a fixed seed on every call, so
  // every evaluation drops the same weights, as for dropout (checks/dropout.cpp).
  for (real p : {real(0.3), real(0)}) {
    cases.push_back({"band_dropout", p > 0 ? "window [1, 1], T 5, p = 0.3" : "window [1, 1], T 5, p = 0",
                     [](Generator& gen) { return std::vector<Tensor>{Tensor::randn({2, 2, 5, 3}, gen)}; },
                     [p](const std::vector<Tensor>& in) {
                       Generator mask_gen(1234);                        // same mask on every call
                       return band_dropout(in[0], /*left=*/1, /*key_len=*/5, p, mask_gen);
                     }});
  }
  explain_op(cases, "band_dropout",
             "A'[i, w] = A[i, w] · m(key, (row · Tq + i) · Tk + j),  j = i − left + w: the mask dropout() gives the "
             "full [Tq, Tk] matrix",
             "∂A[i, w] += G[i, w] · m (the same mask, recomputed)");
  explain_op(cases, "band_scores",
             "S[i, w] = Σ_c Q[i, c] · K[j, c],  j = i − left + w,  w = 0 … left + right   (0 where key j does not "
             "exist)",
             "∂Q[i, c] += Σ_w G[i, w] · K[j, c];   ∂K[j, c] += Σ_{(i, w) → j} G[i, w] · Q[i, c]");
  explain_op(cases, "band_mix", "O[i, c] = Σ_w A[i, w] · V[j, c],  j = i − left + w   (only keys that exist)",
             "∂A[i, w] += Σ_c G[i, c] · V[j, c];   ∂V[j, c] += Σ_{(i, w) → j} A[i, w] · G[i, c]");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
