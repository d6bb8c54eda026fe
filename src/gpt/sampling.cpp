// sampling.cpp — temperature, top-k and top-p, and the loop that continues a text on the KV cache (sampling.h).
#include "gpt/sampling.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "autograd/graph.h"
#include "decode/greedy.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

void check_sampling(const SamplingConfig& s) {
  if (!(s.temperature >= 0) || !std::isfinite(s.temperature)) {
    throw Error("--temperature must be 0 (greedy) or more, got " + std::to_string(s.temperature));
  }
  if (s.top_k < 0) throw Error("--top-k must be 0 (every token) or more, got " + std::to_string(s.top_k));
  if (!(s.top_p > 0 && s.top_p <= 1)) {
    throw Error("--top-p must be in (0, 1] (1: every token), got " + std::to_string(s.top_p));
  }
}

std::vector<TokenProbability> next_token_distribution(const real* z, int64_t V, const SamplingConfig& s) {
  if (s.temperature == 0) return {{most_likely_output(z, V), 1.0}};      // τ → 0: greedy
  std::vector<int32_t> order;                                              // the tokens that may come next
  for (int32_t v = 0; v < V; ++v) if (may_output(v)) order.push_back(v);
  std::stable_sort(order.begin(), order.end(), [z](int32_t a, int32_t b) { return z[a] > z[b]; });   // likeliest first
  if (s.top_k > 0 && static_cast<size_t>(s.top_k) < order.size()) order.resize(static_cast<size_t>(s.top_k));
  std::vector<double> p(order.size());                                     // softmax(z / τ) over the kept tokens
  const double top = double(z[order[0]]);
  for (size_t i = 0; i < order.size(); ++i) p[i] = std::exp((double(z[order[i]]) - top) / s.temperature);
  double total = std::accumulate(p.begin(), p.end(), 0.0);
  if (s.top_p < 1) {                                                       // the nucleus: the fewest whose Σ p ≥ top_p
    double mass = 0;
    size_t kept = 0;
    while (kept < p.size() && mass < s.top_p * total) mass += p[kept++];
    p.resize(kept);
    total = mass;
  }
  std::vector<TokenProbability> kept(p.size());
  for (size_t i = 0; i < p.size(); ++i) kept[i] = {order[i], p[i] / total};
  return kept;
}

int32_t sample_next_token(const real* z, int64_t V, const SamplingConfig& s, Generator& generator) {
  if (s.temperature == 0) return most_likely_output(z, V);                 // τ → 0: greedy, no draw
  const std::vector<TokenProbability> kept = next_token_distribution(z, V, s);
  const double u = generator.uniform();                                    // one draw
  double running = 0;
  for (const TokenProbability& next : kept) {
    running += next.p;
    if (u < running) return next.token;
  }
  return kept.back().token;                                                // rounding left u at the very end
}

namespace {

// The positions a prompt may fill and continue into, and the check that it fits (continue_text's errors).
int64_t checked_positions(const DecoderOnly& model, int64_t length) {
  const int64_t positions = std::min(position_limit(model.config()), generate_positions_most);
  if (length == 0) throw Error("continue_text: the prompt has no tokens (it needs at least bos)");
  if (length > positions) {
    const std::string why = positions == position_limit(model.config())
                                ? "the " + std::to_string(positions) + " positions this model learned (model.max_len)"
                                : "the " + std::to_string(positions) + " positions attnlab generate reads and writes";
    throw Error("the prompt has " + std::to_string(length) + " tokens (bos included), more than " + why +
                "; shorten it");
  }
  return positions;
}

// Feeds the prompt through the model once, filling every layer's cache: the logits after its last token, [1, V].
Tensor feed_prompt(DecoderOnly& model, const std::vector<int32_t>& prompt, DecoderState& state,
                   ForwardContext& ctx) {
  Tensor logits;
  for (int32_t id : prompt) logits = model.step({Shape{1, 1}, {id}}, state, ctx);
  return logits;
}

}  // namespace

std::vector<int32_t> continue_text(DecoderOnly& model, const std::vector<int32_t>& prompt, int64_t max_tokens,
                                   const SamplingConfig& sampling, Generator& generator) {
  check_sampling(sampling);
  const int64_t length = static_cast<int64_t>(prompt.size());
  const int64_t positions = checked_positions(model, length);
  const int64_t most = std::max<int64_t>(0, std::min(max_tokens, positions - length));   // the positions left
  NoGradGuard no_grad;
  ForwardContext ctx;                                                      // not training: no dropout
  DecoderState state = model.start_generating(1, length + most);
  const int64_t V = model.config().tgt_vocab;
  Tensor logits = feed_prompt(model, prompt, state, ctx);                  // [1, V]: after the last token fed
  std::vector<int32_t> out;
  for (int64_t t = 0; t < most; ++t) {
    const int32_t next = sample_next_token(logits.data(), V, sampling, generator);
    if (next == eos_id) break;
    out.push_back(next);
    if (t + 1 < most) logits = model.step({Shape{1, 1}, {next}}, state, ctx);
  }
  return out;
}

std::vector<TokenProbability> prompt_next_token_distribution(DecoderOnly& model, const std::vector<int32_t>& prompt,
                                                             const SamplingConfig& sampling) {
  check_sampling(sampling);
  const int64_t length = static_cast<int64_t>(prompt.size());
  checked_positions(model, length);
  NoGradGuard no_grad;
  ForwardContext ctx;                                                      // not training: no dropout
  DecoderState state = model.start_generating(1, length);
  const Tensor logits = feed_prompt(model, prompt, state, ctx);            // [1, V]
  return next_token_distribution(logits.data(), model.config().tgt_vocab, sampling);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
