// beam_search.h — beam search with the GNMT length penalty (Wu et al. 2016, "Google's Neural Machine
// Translation System", §7).
//
// Greedy decoding commits to the best token at every step; a token that looks best now can lead to a worse
// sentence (a likely first word followed only by unlikely ones). Beam search keeps the k best partial
// translations ("hypotheses") instead of one:
//   start:  one hypothesis, the empty prefix (bos), log-probability 0
//   step:   extend every live hypothesis by every token v:  log P(y_≤t, v) = log P(y_≤t) + log p(v | y_≤t, x);
//           of all these candidates take the best 2k: one that ends in eos is finished (set aside), the others
//           fill the k live hypotheses of the next step
//   stop:   when k hypotheses have finished (as fairseq does), or at the length limit (every candidate of that
//           step is then finished, eos or not)
//   answer: the finished hypothesis with the best score  s(Y) = log P(Y | x) / lp(Y),
//           lp(Y) = ((5 + |Y|) / 6)^α          (GNMT length penalty; |Y| counts the generated tokens, eos too)
// Why the penalty: log P only goes down as tokens are added, so plain log P prefers short outputs; dividing by
// lp, which grows with |Y|, offsets that. α = 0 turns it off (lp = 1); GNMT tuned α ∈ [0.6, 0.7].
// Beam size 1 is greedy decoding. Cost: k times greedy's decoder work (the k hypotheses are rows of one batch),
// plus reordering the decoder's cache to follow the hypotheses that survive.
//
// The search itself knows nothing about Transformers: it asks a NextTokenScorer for log-probabilities, so a test
// can hand it fixed tables and check a result by hand; translate.cpp plugs the model in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// What beam search asks of a model. Rows are hypotheses; the scorer keeps whatever state a row needs.
class NextTokenScorer {
 public:
  virtual ~NextTokenScorer() = default;
  // last_tokens [rows]: the token each row appended last (bos on the first call). Returns log p(v | row's
  // prefix) for every row and every token v of the vocabulary, [rows, V] row-major; −∞ for impossible tokens.
  // The numbers live in the scorer (one buffer reused every step: a batch of 100 sentences × beam 4 × 8,000 words
  // is 25 MB) and stay valid until the next call.
  virtual const std::vector<double>& next_log_probs(const std::vector<int32_t>& last_tokens) = 0;
  // The rows of the next step: new row r continues old row rows[r] (repeats and omissions allowed).
  virtual void reorder(const std::vector<int64_t>& rows) = 0;
};

struct Hypothesis {
  std::vector<int32_t> tokens;  // the output, without bos and without eos
  double log_prob = 0;          // log P(Y | x), eos included when it ended with eos
  int64_t length = 0;           // |Y|: generated tokens, eos included
  double score = 0;             // log_prob / lp(length)
};

// What one step of the search did with its best 2k candidates, for a learner to watch (the explorer's decoding
// view, src/inspect/maps/attention_maps.h): each candidate is a live hypothesis extended by one token, and its fate is
//   kept      it fills one of the k live hypotheses of the next step
//   finished  it ends in eos (or reached the length limit) and is set aside with its score
//   dropped   the beam was already full when its turn came
struct BeamCandidateLog {
  std::vector<int32_t> tokens;  // the hypothesis with its new token (eos included when it ended there)
  double log_prob = 0;          // log P(tokens | x)
  double score = 0;             // finished: log_prob / lp(length); otherwise log_prob
  std::string fate;             // kept | finished | dropped
};
using BeamLog = std::vector<std::vector<BeamCandidateLog>>;  // [step][candidate], the first sentence only

// lp(|Y|) = ((5 + |Y|) / 6)^α.
double gnmt_length_penalty(int64_t length, double alpha);

// Searches every sentence at once. The scorer starts with one row per sentence (limits.size() rows); limits[s]
// is sentence s's maximum number of generated tokens (eos included). Returns the best finished hypothesis of
// each sentence. beam ≥ 1. When `log` is given, every step's candidates of sentence 0 are appended to it.
// no_repeat_ngram = N > 0: no hypothesis is extended by a token that would repeat one of its n-grams of N tokens
// (decode.no_repeat_ngram, no_repeat_ngram.h); 0: no guard.
std::vector<Hypothesis> beam_search(NextTokenScorer& scorer, const std::vector<int64_t>& limits, int64_t beam,
                                    double alpha, BeamLog* log = nullptr, int64_t no_repeat_ngram = 0);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
