// checks/softmax.cpp — gradient checks for softmax (with and without masks) and log_softmax (ops/softmax.cpp).
//
// The masks are constants made here, not inputs: only the scores x are differentiated. Masked entries and
// fully masked rows must check too: their outputs do not move when x is nudged, so both sides must say 0.
#include <limits>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr real hidden = -std::numeric_limits<real>::infinity();       // a mask entry that hides a key

// Random scores of the given shape, softmax'ed with a fixed mask (or none).
GradcheckCase masked(std::string what, Shape scores, Tensor mask) {
  return {"softmax", std::move(what),
          [scores](Generator& gen) { return std::vector<Tensor>{Tensor::randn(scores, gen, 2)}; },
          [mask](const std::vector<Tensor>& in) { return softmax(in[0], mask); }};
}

// Padding mask [B, 1, 1, T]: batch 0 has all 4 keys, batch 1 only the first 2 (keys 2, 3 are padding).
Tensor padding_mask() {
  return Tensor::from_values({2, 1, 1, 4}, {0, 0, 0, 0,
                                            0, 0, hidden, hidden});
}

// Causal mask [T, T]: query i sees keys j ≤ i.
Tensor causal_mask() {
  Tensor mask = Tensor::zeros({4, 4});                                  // [T, T]
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = i + 1; j < 4; ++j) mask.data()[i * 4 + j] = hidden;
  return mask;
}

// Causal and query padding [B, 1, T, T]: in batch 1 queries 2 and 3 are padding and see nothing, so their rows
// are hidden entirely.
Tensor causal_and_query_padding_mask() {
  Tensor mask = Tensor::zeros({2, 1, 4, 4});                            // [B, 1, T, T]
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 4; ++j) {
        bool padded_query = (b == 1 && i >= 2);
        if (j > i || padded_query) mask.data()[(b * 4 + i) * 4 + j] = hidden;
      }
  return mask;
}

}  // namespace

std::vector<GradcheckCase> softmax_checks() {
  std::vector<GradcheckCase> cases;
  cases.push_back(masked("no mask", {2, 3, 5}, Tensor()));
  cases.push_back(masked("no mask, one row", {6}, Tensor()));
  cases.push_back(masked("padding mask [B,1,1,T]", {2, 2, 4, 4}, padding_mask()));
  cases.push_back(masked("causal mask [T,T]", {2, 2, 4, 4}, causal_mask()));
  cases.push_back(masked("causal + query padding: full rows", {2, 2, 4, 4}, causal_and_query_padding_mask()));
  cases.push_back(masked("full-shape mask, row 1 all hidden", {3, 4},
                         Tensor::from_values({3, 4}, {0, hidden, 0, 0,
                                                      hidden, hidden, hidden, hidden,
                                                      hidden, 0, 0, hidden})));
  cases.push_back({"softmax", "logits near 1000",
                   [](Generator& gen) { return std::vector<Tensor>{add_scalar(Tensor::randn({3, 5}, gen), 1000)}; },
                   [](const std::vector<Tensor>& in) { return softmax(in[0]); }});

  cases.push_back({"log_softmax", "[2, 3, 5]",
                   [](Generator& gen) { return std::vector<Tensor>{Tensor::randn({2, 3, 5}, gen, 2)}; },
                   [](const std::vector<Tensor>& in) { return log_softmax(in[0]); }});
  cases.push_back({"log_softmax", "logits near 1000",
                   [](Generator& gen) { return std::vector<Tensor>{add_scalar(Tensor::randn({3, 5}, gen), 1000)}; },
                   [](const std::vector<Tensor>& in) { return log_softmax(in[0]); }});
  explain_op(cases, "softmax",
             "z = x + m (mask m: 0 keeps, −inf hides),  y_i = e^(z_i − max z) / Σ_k e^(z_k − max z)   over the last "
             "axis",
             "∂x_i += y_i · (g_i − Σ_j g_j y_j)   (from ∂y_i/∂z_j = y_i (δ_ij − y_j)); hidden entries and fully "
             "hidden rows get 0");
  explain_op(cases, "log_softmax", "y_i = x_i − (max x + log Σ_j e^(x_j − max x))   over the last axis",
             "∂x_i += g_i − softmax_i · Σ_j g_j,  softmax_i = e^(y_i)   (from ∂y_i/∂x_j = δ_ij − softmax_j)");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
