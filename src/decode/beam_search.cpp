// beam_search.cpp — the search of beam_search.h, batched: the live hypotheses of all unfinished sentences are
// the rows of one scorer call per step.
#include "decode/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/config.h"
#include "util/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

struct Live {                       // a hypothesis still growing
  std::vector<int32_t> tokens;      // without bos
  double log_prob = 0;
  int64_t row = 0;                  // its row in the scorer
};

struct Candidate {                  // live hypothesis `from` extended by `token`
  double log_prob;
  int64_t from;                     // index into the sentence's live hypotheses
  int32_t token;
};

struct Sentence {
  std::vector<Live> live{Live{}};   // starts with the empty prefix
  std::vector<Hypothesis> finished;
  bool done = false;
};

Hypothesis finish(const Live& live, const Candidate& c, double alpha) {
  Hypothesis h;
  h.tokens = live.tokens;
  if (c.token != eos_id) h.tokens.push_back(c.token);  // cut at the length limit: the token stays
  h.log_prob = c.log_prob;
  h.length = static_cast<int64_t>(live.tokens.size()) + 1;
  h.score = c.log_prob / gnmt_length_penalty(h.length, alpha);
  return h;
}

}  // namespace

double gnmt_length_penalty(int64_t length, double alpha) {
  return std::pow((5.0 + static_cast<double>(length)) / 6.0, alpha);
}

std::vector<Hypothesis> beam_search(NextTokenScorer& scorer, const std::vector<int64_t>& limits, int64_t beam,
                                    double alpha, BeamLog* log) {
  if (beam < 1) throw Error("decode.beam must be at least 1, got " + std::to_string(beam));
  const size_t k = static_cast<size_t>(beam);
  std::vector<Sentence> sentences(limits.size());
  std::vector<int32_t> last_tokens(limits.size(), bos_id);   // one row per sentence to begin with
  for (size_t s = 0; s < sentences.size(); ++s) sentences[s].live[0].row = static_cast<int64_t>(s);

  while (!last_tokens.empty()) {
    const std::vector<double> log_p = scorer.next_log_probs(last_tokens);   // [rows, V]
    const int64_t V = static_cast<int64_t>(log_p.size() / last_tokens.size());
    std::vector<int64_t> rows;                                  // the next step's rows, as old row indices
    std::vector<int32_t> next_tokens;
    for (size_t s = 0; s < sentences.size(); ++s) {
      Sentence& sentence = sentences[s];
      if (sentence.done) continue;
      // Every extension of every live hypothesis; keep the best 2k (ties: earlier hypothesis, smaller id).
      std::vector<Candidate> candidates;
      for (size_t i = 0; i < sentence.live.size(); ++i) {
        const double* row = log_p.data() + sentence.live[i].row * V;       // [V]
        for (int64_t v = 0; v < V; ++v) {
          if (!(row[v] > minus_infinity)) continue;                             // impossible token
          candidates.push_back({sentence.live[i].log_prob + row[v], static_cast<int64_t>(i), static_cast<int32_t>(v)});
        }
      }
      const size_t keep = std::min(candidates.size(), 2 * k);
      std::partial_sort(candidates.begin(), candidates.begin() + static_cast<int64_t>(keep), candidates.end(),
                        [](const Candidate& a, const Candidate& b) {
                          if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
                          if (a.from != b.from) return a.from < b.from;
                          return a.token < b.token;
                        });
      candidates.resize(keep);

      // Every live hypothesis has the same length, so this step's candidates have length + 1 tokens.
      const bool at_limit = static_cast<int64_t>(sentence.live[0].tokens.size()) + 1 >= limits[s];
      std::vector<Live> next_live;
      std::vector<BeamCandidateLog>* step_log = log && s == 0 ? &log->emplace_back() : nullptr;
      for (const Candidate& c : candidates) {
        const Live& from = sentence.live[static_cast<size_t>(c.from)];
        const bool beam_full = !at_limit && next_live.size() == k;   // then c and the rest are dropped
        const bool finished = !beam_full && (c.token == eos_id || at_limit);
        if (step_log) {                                          // what becomes of c, for a learner to watch
          BeamCandidateLog entry{from.tokens, c.log_prob, finished ? finish(from, c, alpha).score : c.log_prob,
                                 beam_full ? "dropped" : finished ? "finished" : "kept"};
          entry.tokens.push_back(c.token);
          step_log->push_back(std::move(entry));
        }
        if (beam_full) continue;
        if (finished) {
          sentence.finished.push_back(finish(from, c, alpha));
          continue;
        }
        Live extended{from.tokens, c.log_prob, static_cast<int64_t>(rows.size())};
        extended.tokens.push_back(c.token);
        rows.push_back(from.row);                                // the new row continues the old one
        next_tokens.push_back(c.token);
        next_live.push_back(std::move(extended));
      }
      sentence.live = std::move(next_live);
      sentence.done = at_limit || sentence.finished.size() >= k || sentence.live.empty();
      if (sentence.done) {                                       // its rows leave the batch
        rows.resize(rows.size() - sentence.live.size());
        next_tokens.resize(rows.size());
        sentence.live.clear();
      }
    }
    if (rows.empty()) break;
    scorer.reorder(rows);
    last_tokens = std::move(next_tokens);
  }

  std::vector<Hypothesis> best(sentences.size());
  for (size_t s = 0; s < sentences.size(); ++s) {
    const std::vector<Hypothesis>& finished = sentences[s].finished;
    if (finished.empty()) continue;                              // nothing was possible: the empty output
    best[s] = *std::max_element(finished.begin(), finished.end(), [](const Hypothesis& a, const Hypothesis& b) {
      return a.score < b.score;                                  // the first of equal scores wins
    });
  }
  return best;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
