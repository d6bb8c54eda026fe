// translation_log_prob.h — how likely the model finds a translation: log p(y | x).
//
//   log p(y | x) = Σ_{t=1}^{m+1} log p(y_t | y_<t, x),   y_{m+1} = </s>
// from one teacher-forced pass (the decoder reads <s> y_1 … y_m, as in training), each term a log-softmax of that
// position's logits. The number beam search ranks hypotheses by before its length penalty; for a greedy
// translation it says how sure the model was, and after an intervention (model/intervention.h) how much less sure.
#pragma once

#include <cstdint>
#include <vector>

#include "model/transformer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// source_ids x_1 … x_S (no bos or eos), output_ids y_1 … y_m (no bos, no eos: what translate_ids returns) → log
// p(y </s> | x), a number ≤ 0. No graph, no dropout. An empty source gives 0 (nothing was translated).
double translation_log_prob(Seq2Seq& model, const std::vector<int32_t>& source_ids,
                            const std::vector<int32_t>& output_ids);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
