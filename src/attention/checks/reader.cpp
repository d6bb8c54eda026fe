// attention/checks/reader.cpp — gradient checks for the cloze readers' attention (reader.cpp): attention over
// attention from D and Q to s, and on to P through pointer_sum (the whole answer distribution), and the
// attention-sum reader's s. Documents and queries of a batch of 2 have different lengths, so every padded
// position (which must get no gradient and no weight) is in the checks.
#include "attention/reader.h"

#include "attention/checks.h"
#include "autograd/gradcheck.h"
#include "autograd/ops.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr int64_t d = 4;

// Documents of 5 and 3 real positions (n = 5), queries of 3 and 2 (m = 3).
ReaderPadding example_padding() {
  return {2, 5, 3, {1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, {1, 1, 1, 1, 1, 0}};
}

// Token ids of those documents (pad id 0 where padded): word 4 twice in the first, word 6 twice in the second.
TokenIds example_document() { return {{2, 5}, {4, 5, 4, 6, 7, 6, 8, 6, 0, 0}}; }

GradcheckCase aoa_case(std::string what, bool through_pointer_sum) {
  return {"attention.aoa", std::move(what),
          [](Generator& gen) {
            return std::vector<Tensor>{Tensor::randn({2, 5, d}, gen), Tensor::randn({2, 3, d}, gen)};
          },
          [through_pointer_sum](const std::vector<Tensor>& in) {
            Tensor s = attention_over_attention(in[0], in[1], example_padding());   // [2, 5]
            return through_pointer_sum ? pointer_sum(s, example_document(), 9) : s;  // [2, 9] or [2, 5]
          }};
}

}  // namespace

std::vector<GradcheckCase> reader_attention_checks() {
  std::vector<GradcheckCase> cases{
      aoa_case("s = α β̄, padded documents and queries", false),
      aoa_case("P = pointer_sum(α β̄), repeated words", true),
      {"attention.as_reader", "s = softmax(D q), padded documents",
       [](Generator& gen) { return std::vector<Tensor>{Tensor::randn({2, 5, d}, gen), Tensor::randn({2, d}, gen)}; },
       [](const std::vector<Tensor>& in) { return attention_sum_scores(in[0], in[1], example_padding()); }},
  };
  explain_op(cases, "attention.aoa",
             "M = D Qᵀ;  α = softmax over document positions of each column;  β = softmax over query words of each "
             "row;  β̄ = mean of β over real document rows;  s = α β̄",
             "the chain rule through matmul, softmax (twice), mul, sum, divide and matmul: each op's own backward");
  explain_op(cases, "attention.as_reader", "s_i = softmax_i(D_i · q)   over the real document positions",
             "∂z_i = s_i (g_i − Σ_k g_k s_k);  ∂D_i += ∂z_i q;  ∂q += Σ_i ∂z_i D_i");
  return cases;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
