// beam_search.cpp — the search of beam_search.h, batched: the live hypotheses of all unfinished sentences are
// the rows of one scorer call per step.
#include "decode/beam_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "decode/no_repeat_ngram.h"
#include "model/config.h"
#include "tensor/parallel.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

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

// The best `keep` extensions of a sentence's live hypotheses, best first (ties: earlier hypothesis, smaller id).
// The obvious way lists every extension — live · V candidates, 32,000 for beam 4 and 8,000 words — and sorts
// the best to the front. Each hypothesis can place at most `keep` extensions among the best `keep`, so here each
// row's best `keep` are found first in one pass over its V numbers (a heap of `keep`, its worst on top), and only
// those live · keep candidates compete: the same candidates in the same order, without the long list.
bool better(const Candidate& a, const Candidate& b) {
  if (a.log_prob != b.log_prob) return a.log_prob > b.log_prob;
  if (a.from != b.from) return a.from < b.from;
  return a.token < b.token;
}

// With the repetition guard (no_repeat_ngram > 0) a token that would repeat an n-gram of the hypothesis counts as
// impossible too (no_repeat_ngram.h).
std::vector<Candidate> best_candidates(const Sentence& sentence, const double* log_p, int64_t V, size_t keep,
                                       int64_t no_repeat_ngram) {
  std::vector<Candidate> candidates;
  std::vector<Candidate> heap;                                  // this row's best so far, the worst on top
  for (size_t i = 0; i < sentence.live.size(); ++i) {
    const double* row = log_p + sentence.live[i].row * V;       // [V]
    const std::vector<int32_t> banned = banned_next_tokens(sentence.live[i].tokens, no_repeat_ngram);
    heap.clear();
    for (int64_t v = 0; v < V; ++v) {
      if (!(row[v] > minus_infinity)) continue;                  // impossible token
      if (!banned.empty() && std::find(banned.begin(), banned.end(), v) != banned.end()) continue;   // a repeat
      const Candidate c{sentence.live[i].log_prob + row[v], static_cast<int64_t>(i), static_cast<int32_t>(v)};
      if (heap.size() < keep) {
        heap.push_back(c);
        std::push_heap(heap.begin(), heap.end(), better);
      } else if (better(c, heap.front())) {                      // c beats this row's worst kept
        std::pop_heap(heap.begin(), heap.end(), better);
        heap.back() = c;
        std::push_heap(heap.begin(), heap.end(), better);
      }
    }
    candidates.insert(candidates.end(), heap.begin(), heap.end());
  }
  const size_t kept = std::min(candidates.size(), keep);
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<int64_t>(kept), candidates.end(), better);
  candidates.resize(kept);
  return candidates;
}

}  // namespace

double gnmt_length_penalty(int64_t length, double alpha) {
  return std::pow((5.0 + static_cast<double>(length)) / 6.0, alpha);
}

std::vector<Hypothesis> beam_search(NextTokenScorer& scorer, const std::vector<int64_t>& limits, int64_t beam,
                                    double alpha, BeamLog* log, int64_t no_repeat_ngram) {
  if (beam < 1) throw Error("decode.beam must be at least 1, got " + std::to_string(beam));
  const size_t k = static_cast<size_t>(beam);
  std::vector<Sentence> sentences(limits.size());
  std::vector<int32_t> last_tokens(limits.size(), bos_id);   // one row per sentence to begin with
  for (size_t s = 0; s < sentences.size(); ++s) sentences[s].live[0].row = static_cast<int64_t>(s);

  std::vector<std::vector<Candidate>> best_of(sentences.size()); // each sentence's best 2k, this step
  while (!last_tokens.empty()) {
    const std::vector<double>& log_p = scorer.next_log_probs(last_tokens);  // [rows, V]
    const int64_t V = static_cast<int64_t>(log_p.size() / last_tokens.size());
    // The sentences' searches are independent: with many rows (a batch of sentences) they share the threads.
    const int64_t count = static_cast<int64_t>(sentences.size());
#pragma omp parallel for schedule(dynamic) if (count > 1 && worth_threads(static_cast<int64_t>(last_tokens.size()) * V))
    for (int64_t s = 0; s < count; ++s) {
      const Sentence& sentence = sentences[static_cast<size_t>(s)];
      if (!sentence.done) best_of[static_cast<size_t>(s)] = best_candidates(sentence, log_p.data(), V, 2 * k,
                                                                                     no_repeat_ngram);
    }
    std::vector<int64_t> rows;                                  // the next step's rows, as old row indices
    std::vector<int32_t> next_tokens;
    for (size_t s = 0; s < sentences.size(); ++s) {
      Sentence& sentence = sentences[s];
      if (sentence.done) continue;
      const std::vector<Candidate>& candidates = best_of[s];

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

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
