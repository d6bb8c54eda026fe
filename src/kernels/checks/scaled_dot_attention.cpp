// checks/scaled_dot_attention.cpp — gradient checks for the fused attention op (kernels/scaled_dot_attention.cpp):
// Q, K and V are differentiated; the additive mask is a constant. Cases: padding and causal masks, a query row
// hidden everywhere (it passes no gradient), dropout with a fixed mask, and Q = K = V one tensor used three times.
#include <limits>

#include "autograd/gradcheck.h"
#include "autograd/ops.h"
#include "kernels/checks.h"
#include "kernels/kernels.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr real hidden = -std::numeric_limits<real>::infinity();

// [B = 2, 1, Tq, Tk]: sentence 1 has only `real_keys` keys; causal hides j > i; sentence 1's last query is a
// padding query that sees nothing when hide_last_query.
Tensor mask(int64_t Tq, int64_t Tk, int64_t real_keys, bool causal, bool hide_last_query) {
  Tensor m = Tensor::zeros({2, 1, Tq, Tk});
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t i = 0; i < Tq; ++i)
      for (int64_t j = 0; j < Tk; ++j) {
        const bool hide = (b == 1 && j >= real_keys) || (causal && j > i) || (b == 1 && hide_last_query && i == Tq - 1);
        if (hide) m.data()[(b * Tq + i) * Tk + j] = hidden;
      }
  return m;
}

GradcheckCase attention_case(std::string what, int64_t Tq, int64_t Tk, Tensor additive_mask, real p, bool shared) {
  const int64_t d_model = 6, heads = 2;
  return {"scaled_dot_attention", std::move(what),
          [=](Generator& gen) {
            if (shared) return std::vector<Tensor>{Tensor::randn({2, Tq, d_model}, gen)};
            return std::vector<Tensor>{Tensor::randn({2, Tq, d_model}, gen), Tensor::randn({2, Tk, d_model}, gen),
                                       Tensor::randn({2, Tk, d_model}, gen)};
          },
          [=](const std::vector<Tensor>& in) {
            Generator mask_gen(99);                                     // the same dropout mask on every call
            const Tensor& Q = in[0];
            const Tensor& K = shared ? in[0] : in[1];
            const Tensor& V = shared ? in[0] : in[2];
            return scaled_dot_attention(Q, K, V, heads, real(0.5), additive_mask, p, &mask_gen);
          }};
}

}  // namespace

std::vector<GradcheckCase> scaled_dot_attention_checks() {
  std::vector<GradcheckCase> cases{
      attention_case("cross Tq 2, Tk 3, padding", 2, 3, mask(2, 3, 2, false, false), 0, false),
      attention_case("causal, padding query hidden", 3, 3, mask(3, 3, 2, true, true), 0, false),
      attention_case("no mask, dropout 0.3", 3, 4, Tensor(), real(0.3), false),
      attention_case("Q = K = V (one tensor), causal", 3, 3, mask(3, 3, 3, true, false), 0, true)};
  explain_op(cases, "scaled_dot_attention",
             "per sentence and head h:  A = softmax(s · Q_h K_hᵀ + M),  O_h = (A ⊙ D) V_h   (s = 1/√d_k, M the "
             "mask, D dropout)",
             "∂V_h += (A ⊙ D)ᵀ G;  ∂A = (G V_hᵀ) ⊙ D;  ∂S_ij = A_ij (∂A_ij − Σ_j' ∂A_ij' A_ij');  ∂Q_h += s · ∂S K_h;  "
             "∂K_h += s · ∂Sᵀ Q_h");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
