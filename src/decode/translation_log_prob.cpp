// translation_log_prob.cpp — log p(y | x) of a translation from one teacher-forced pass (translation_log_prob.h).
#include "decode/translation_log_prob.h"

#include <algorithm>
#include <cmath>

#include "autograd/graph.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

double translation_log_prob(Seq2Seq& model, const std::vector<int32_t>& source_ids,
                            const std::vector<int32_t>& output_ids) {
  if (source_ids.empty()) return 0;
  NoGradGuard no_graph;
  ForwardContext ctx;                                                         // training false: no dropout
  std::vector<int32_t> input{bos_id}, target = output_ids;                    // <s> y_1 … y_m  →  y_1 … y_m </s>
  input.insert(input.end(), output_ids.begin(), output_ids.end());
  target.push_back(eos_id);
  const auto S = static_cast<int64_t>(source_ids.size()), T = static_cast<int64_t>(input.size());
  const TokenIds src{Shape{1, S}, source_ids}, tgt_in{Shape{1, T}, input};
  const Tensor logits = model.decoder_logits(tgt_in, model.encode(src, ctx), src, ctx);   // [1, T, V]
  const int64_t V = logits.size(2);
  double total = 0;
  for (int64_t t = 0; t < T; ++t) {
    const real* row = logits.data() + t * V;                                  // [V]
    const double max = *std::max_element(row, row + V);
    double sum = 0;                                                           // log p = z_y − max − log Σ e^(z − max)
    for (int64_t v = 0; v < V; ++v) sum += std::exp(double(row[v]) - max);
    total += double(row[target[static_cast<size_t>(t)]]) - max - std::log(sum);
  }
  return total;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
