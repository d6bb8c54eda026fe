// attention/checks/hard.cpp — the gradient check of hard attention's one differentiable piece, the Gumbel-softmax
// relaxation gumbel_st backpropagates through (hard.cpp): y = softmax((z + g) / τ + mask), in the scores z, with the
// noise g a constant drawn once per case (so the function is deterministic, as the checker needs). The sampled
// one-hot forward has no derivative — it jumps — which is why straight_through hands y's gradient to it;
// tests/attention/f64_hard_attention.cpp proves straight_through's gradient is exactly this one.
#include <cmath>

#include "attention/attention.h"
#include "attention/checks.h"
#include "attention/hard_estimators.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

GradcheckCase gumbel_case(std::string what, double temperature, const std::vector<int64_t>& key_lengths) {
  const int64_t B = static_cast<int64_t>(key_lengths.size()), Tq = 3, Tk = 4;
  const Tensor additive_mask =
      make_length_mask(key_lengths, Tq, Tk, false).additive(AttentionConfig{});  // [B, 1, Tq, Tk]
  Generator noise_gen(13);
  Tensor noise = Tensor::zeros({B, 2, Tq, Tk});  // g = −log(−log u), fixed
  for (int64_t n = 0; n < noise.numel(); ++n)
    noise.data()[n] = static_cast<real>(-std::log(-std::log(noise_gen.uniform(1e-6, 1))));
  return {"attention.gumbel_softmax", std::move(what),
          [B](Generator& gen) {
            return std::vector<Tensor>{Tensor::randn({B, 2, Tq, Tk}, gen)};
          },  // z [B, h, Tq, Tk]
          [additive_mask, noise, temperature](const std::vector<Tensor>& in) {
            return gumbel_softmax(in[0], additive_mask, noise, temperature);  // [B, h, Tq, Tk]
          }};
}

}  // namespace

std::vector<GradcheckCase> hard_attention_checks() {
  std::vector<GradcheckCase> cases;
  cases.push_back(gumbel_case("τ 1, every key seen", 1.0, {4, 4}));
  cases.push_back(gumbel_case("τ 0.5, padding (4, 2)", 0.5, {4, 2}));
  explain_op(cases, "attention.gumbel_softmax",
             "y = softmax((z + g) / τ + mask), g = −log(−log u) drawn once (a constant)",
             "∂z_j = (1/τ) y_j (∂y_j − Σ_k y_k ∂y_k): softmax's backward, divided by τ; hidden keys: 0");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
