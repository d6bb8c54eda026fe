// translate.cpp — the model as beam search's scorer, and the entry point translate_ids.
#include "decode/translate.h"

#include <algorithm>
#include <cmath>

#include "autograd/graph.h"
#include "decode/greedy.h"
#include "tensor/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

// One row per hypothesis: the decoder's cache of that hypothesis' prefix (DecoderState), advanced one token per
// call, reordered as beam search keeps, copies or drops hypotheses.
class ModelScorer : public NextTokenScorer {
 public:
  ModelScorer(Seq2Seq& model, DecoderState state) : model_(model), state_(std::move(state)) {}

  std::vector<double> next_log_probs(const std::vector<int32_t>& last_tokens) override {
    TokenIds tokens;
    tokens.shape = Shape{static_cast<int64_t>(last_tokens.size()), 1};
    tokens.values = last_tokens;
    Tensor logits = model_.decode_step(tokens, state_, ctx_);                // [rows, V]
    const int64_t rows = logits.size(0), V = logits.size(1);
    // log p_v = x_v − log Σ_u e^(x_u), in double: a stable log-softmax per row.
    std::vector<double> log_p(static_cast<size_t>(rows * V));                // [rows, V]
    for (int64_t r = 0; r < rows; ++r) {
      const real* x = logits.data() + r * V;
      const double max = *std::max_element(x, x + V);
      double total = 0;
      for (int64_t v = 0; v < V; ++v) total += std::exp(double(x[v]) - max);
      const double log_normaliser = max + std::log(total);
      for (int64_t v = 0; v < V; ++v) log_p[static_cast<size_t>(r * V + v)] = double(x[v]) - log_normaliser;
    }
    return log_p;
  }

  void reorder(const std::vector<int64_t>& rows) override { state_.reorder(rows); }

 private:
  Seq2Seq& model_;
  DecoderState state_;
  ForwardContext ctx_;                                                       // inference: no dropout
};

}  // namespace

std::vector<Hypothesis> beam_search_decode(Seq2Seq& model, const TokenIds& src, const DecodeConfig& config) {
  NoGradGuard no_grad;
  ForwardContext ctx;
  const std::vector<int64_t> limits = output_length_limits(src, config);
  Tensor memory = model.encode(src, ctx);                                    // [B, S, d], once per sentence
  ModelScorer scorer(model, model.start_decoding(memory, src, *std::max_element(limits.begin(), limits.end())));
  return beam_search(scorer, limits, config.beam, config.length_penalty);
}

std::vector<std::vector<int32_t>> translate_ids(Seq2Seq& model, const TokenIds& src, const DecodeConfig& config) {
  if (config.beam < 1) throw Error("decode.beam must be at least 1 (1 = greedy), got " + std::to_string(config.beam));
  if (src.shape.rank() != 2) throw Error("translate_ids: the source must be [batch, time], got " + src.shape.str());
  if (src.shape[0] == 0) return {};
  if (config.beam == 1) return greedy_decode_cached(model, src, config);
  std::vector<std::vector<int32_t>> outputs;
  for (Hypothesis& best : beam_search_decode(model, src, config)) outputs.push_back(std::move(best.tokens));
  return outputs;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
