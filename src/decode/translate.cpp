// translate.cpp — the model as beam search's scorer, and the entry point translate_ids.
#include "decode/translate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/graph.h"
#include "decode/greedy.h"
#include "tensor/parallel.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

// One row per hypothesis: the decoder's cache of that hypothesis' prefix (DecoderState), advanced one token per
// call, reordered as beam search keeps, copies or drops hypotheses.
class ModelScorer : public NextTokenScorer {
 public:
  ModelScorer(Seq2Seq& model, DecoderState state) : model_(model), state_(std::move(state)) {}

  // log p(v) over the tokens a decoder may output (greedy.h: not pad, not bos): the log-softmax of their logits,
  // log p_v = x_v − log Σ_u e^(x_u) with u over those tokens only, in double; −∞ for pad and bos. Renormalising
  // over what may be output keeps beam 1 equal to greedy and makes no hypothesis pay for probability the model
  // put on tokens it can never emit (a trained model puts almost none there).
  const std::vector<double>& next_log_probs(const std::vector<int32_t>& last_tokens) override {
    TokenIds tokens;
    tokens.shape = Shape{static_cast<int64_t>(last_tokens.size()), 1};
    tokens.values = last_tokens;
    Tensor logits = model_.decode_step(tokens, state_, ctx_);                // [rows, V]
    const int64_t rows = logits.size(0), V = logits.size(1);
    log_p_.resize(static_cast<size_t>(rows * V));                            // [rows, V], every number written
    double* log_p = log_p_.data();
    // Rows are independent: shared among the threads when a batch of hypotheses is large (tensor/parallel.h).
    // most_likely_output throws for a vocabulary with nothing to output: asked once here, outside the threads.
    if (rows > 0) most_likely_output(logits.data(), V);
#pragma omp parallel for schedule(static) if (worth_threads(rows * V))
    for (int64_t r = 0; r < rows; ++r) {
      const real* x = logits.data() + r * V;
      const double max = x[most_likely_output(x, V)];                        // for a stable e^(x − max)
      double total = 0;
      for (int32_t v = 0; v < V; ++v) {
        if (may_output(v)) total += std::exp(double(x[v]) - max);
      }
      const double log_normaliser = max + std::log(total);
      for (int32_t v = 0; v < V; ++v) log_p[r * V + v] = may_output(v) ? double(x[v]) - log_normaliser : minus_infinity;
    }
    return log_p_;
  }

  void reorder(const std::vector<int64_t>& rows) override { state_.reorder(rows); }

 private:
  Seq2Seq& model_;
  DecoderState state_;
  ForwardContext ctx_;                                                       // inference: no dropout
  std::vector<double> log_p_;                                                // the last step's [rows, V]
};

// With learned positions a source of more than model.max_len tokens has positions the model has no row for.
void check_source_lengths(const TokenIds& src, const ModelConfig& model) {
  for (int64_t length : real_lengths(src)) {
    if (length > position_limit(model)) {
      throw Error("a source sentence has " + std::to_string(length) + " tokens, more than model.max_len = " +
                  std::to_string(model.max_len) + ", the positions this model learned; shorten or split it");
    }
  }
}

}  // namespace

std::vector<Hypothesis> beam_search_decode(Seq2Seq& model, const TokenIds& src, const DecodeConfig& config,
                                           BeamLog* log) {
  check_source_lengths(src, model.config());
  NoGradGuard no_grad;
  ForwardContext ctx;
  const std::vector<int64_t> limits = output_length_limits(src, config, model.config());
  Tensor memory = model.encode(src, ctx);                                    // [B, S, d], once per sentence
  ModelScorer scorer(model, model.start_decoding(memory, src, *std::max_element(limits.begin(), limits.end())));
  return beam_search(scorer, limits, config.beam, config.length_penalty, log, config.no_repeat_ngram);
}

std::vector<std::vector<int32_t>> translate_ids(Seq2Seq& model, const TokenIds& src, const DecodeConfig& config) {
  if (config.beam < 1) throw Error("decode.beam must be at least 1 (1 = greedy), got " + std::to_string(config.beam));
  if (src.shape.rank() != 2) throw Error("translate_ids: the source must be [batch, time], got " + src.shape.str());
  if (src.shape[0] == 0) return {};
  check_source_lengths(src, model.config());
  if (config.beam == 1) return greedy_decode_cached(model, src, config);
  std::vector<std::vector<int32_t>> outputs;
  for (Hypothesis& best : beam_search_decode(model, src, config)) outputs.push_back(std::move(best.tokens));
  return outputs;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
