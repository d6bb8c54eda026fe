// check.cpp — beam_step against the library's beam search (decode/beam_search.h).
//
// A scorer with fixed tables (log p(v | prefix) made from the prefix alone, so any two runs agree) drives the
// library's beam_search, which logs every step's candidates and what became of them. Its table makes eos
// impossible, so no hypothesis finishes early and the candidates marked "kept" are exactly the k best extensions.
// At each step your beam_step gets the hypotheses the library kept at the step before and the same table, and must
// keep the same hypotheses, in the same order, with the same log P.
//
// At every step the check also works out what each usual mistake keeps from the same live hypotheses (one rule
// changed: the score, or where the k best are cut), as a table [kept, tokens + 1] — a hypothesis a row, its tokens
// and then its log P — and names the mistake that yours is. The first step alone cannot tell them all apart: it
// extends one hypothesis, the empty one, whose log P is 0; the second step extends k of them with different scores.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "check.h"
#include "decode/beam_search.h"
#include "exercise.h"
#include "tensor/token_ids.h"

namespace attnlab::exercises {
namespace {

constexpr int64_t vocabulary = 9;                                    // pad, bos, eos, and words 3 … 8

// log p(v | prefix) for v = 0 … 8: a log-softmax of scores drawn from the prefix, with pad, bos and eos ruled out.
std::vector<double> table_for(const std::vector<int32_t>& prefix) {
  uint64_t seed = 1469598103934665603ull;                            // FNV-1a over the prefix's ids
  for (int32_t token : prefix) seed = (seed ^ static_cast<uint64_t>(token)) * 1099511628211ull;
  Generator gen(seed);
  std::vector<double> log_p(vocabulary, -std::numeric_limits<double>::infinity());
  double total = 0;
  for (int64_t v = unk_id; v < vocabulary; ++v) {                  // the words: a score each
    log_p[static_cast<size_t>(v)] = gen.normal(0, 1.5);
    total += std::exp(log_p[static_cast<size_t>(v)]);
  }
  for (int64_t v = unk_id; v < vocabulary; ++v) log_p[static_cast<size_t>(v)] -= std::log(total);   // Σ p = 1
  return log_p;
}

// The library's view of the tables: one prefix per row, followed through reorder().
class TableScorer : public NextTokenScorer {
 public:
  const std::vector<double>& next_log_probs(const std::vector<int32_t>& last_tokens) override {
    prefixes_.resize(last_tokens.size());
    log_p_.clear();
    for (size_t r = 0; r < last_tokens.size(); ++r) {
      if (last_tokens[r] != bos_id) prefixes_[r].push_back(last_tokens[r]);
      const std::vector<double> row = table_for(prefixes_[r]);
      log_p_.insert(log_p_.end(), row.begin(), row.end());
    }
    return log_p_;
  }
  void reorder(const std::vector<int64_t>& rows) override {
    std::vector<std::vector<int32_t>> kept;
    for (int64_t r : rows) kept.push_back(prefixes_[static_cast<size_t>(r)]);
    prefixes_ = std::move(kept);
  }

 private:
  std::vector<std::vector<int32_t>> prefixes_;                       // [rows]
  std::vector<double> log_p_;                                        // [rows, V]
};

std::string tokens_text(const std::vector<int32_t>& tokens) {
  std::string text;
  for (int32_t t : tokens) text += (text.empty() ? "" : " ") + std::to_string(t);
  return "[" + text + "]";
}

std::string hypothesis_text(const LiveHypothesis& h) { return tokens_text(h.tokens) + " log P " + number(h.log_prob); }

// The rules of a step, and the one a usual mistake changes.
enum class Score { log_sum, probability_sum, log_product, token_only };   // log P(y) + log p(v | y) and the wrong ones
enum class Cut { best_k_overall, best_k_each_sorted, best_k_each_in_row_order };

double score_of(Score score, double log_P, double log_p) {
  switch (score) {
    case Score::log_sum: return log_P + log_p;
    case Score::probability_sum: return std::exp(log_P) + std::exp(log_p);
    case Score::log_product: return log_P * log_p;
    case Score::token_only: return log_p;
  }
  return 0;
}

// The hypotheses kept by one step under `score` and `cut`: best first, ties broken as the library breaks them.
std::vector<LiveHypothesis> step_by(const std::vector<LiveHypothesis>& live, const std::vector<double>& log_probs,
                                    size_t k, Score score, Cut cut) {
  struct Scored {
    double score;
    size_t from;
    int32_t token;
  };
  auto better = [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.from != b.from ? a.from < b.from : a.token < b.token;
  };
  std::vector<Scored> kept;
  for (size_t r = 0; r < live.size(); ++r) {
    std::vector<Scored> row;                                         // live[r] + v, for every possible v
    for (int64_t v = 0; v < vocabulary; ++v) {
      const double log_p = log_probs[r * static_cast<size_t>(vocabulary) + static_cast<size_t>(v)];
      if (!std::isinf(log_p)) row.push_back({score_of(score, live[r].log_prob, log_p), r, static_cast<int32_t>(v)});
    }
    std::sort(row.begin(), row.end(), better);
    if (cut != Cut::best_k_overall) row.resize(std::min(row.size(), k));
    kept.insert(kept.end(), row.begin(), row.end());
  }
  if (cut != Cut::best_k_each_in_row_order) std::sort(kept.begin(), kept.end(), better);
  if (cut == Cut::best_k_overall) kept.resize(std::min(kept.size(), k));
  std::vector<LiveHypothesis> hypotheses;
  for (const Scored& c : kept) {
    hypotheses.push_back(live[c.from]);
    hypotheses.back().tokens.push_back(c.token);
    hypotheses.back().log_prob = c.score;
  }
  return hypotheses;
}

// Hypotheses as a table [n, tokens + 1], a row each: its tokens, then its log P — what diagnose() compares. An empty
// Tensor when there are none, or their lengths differ (no mistake of the list gives that).
Tensor as_table(const std::vector<LiveHypothesis>& hypotheses) {
  if (hypotheses.empty()) return {};
  const size_t length = hypotheses[0].tokens.size();
  std::vector<real> rows;
  for (const LiveHypothesis& h : hypotheses) {
    if (h.tokens.size() != length) return {};
    rows.insert(rows.end(), h.tokens.begin(), h.tokens.end());
    rows.push_back(static_cast<real>(h.log_prob));
  }
  return Tensor::from_values({static_cast<int64_t>(hypotheses.size()), static_cast<int64_t>(length + 1)}, rows);
}

std::vector<Mistake> usual_mistakes(const std::vector<LiveHypothesis>& live, const std::vector<double>& log_probs,
                                    size_t k) {
  auto gives = [&](Score score, Cut cut) { return as_table(step_by(live, log_probs, k, score, cut)); };
  const std::string per_hypothesis_fix =
      "the beam is the k best of all R · V candidates together, not k per hypothesis: a strong hypothesis may "
      "place all k of its extensions, a weak one none. Pool the candidates, then keep the best k.";
  return {
      {"probabilities_added", "your score is P(y) + p(v | y), a sum of probabilities",
       gives(Score::probability_sum, Cut::best_k_overall),
       "the probability of y followed by v is a product, P(y) · p(v | y); in logs a sum: "
       "log P(y, v) = log P(y) + log p(v | y). Add the logs you are given, and keep log P, not a probability."},
      {"log_probs_multiplied", "your score is log P(y) · log p(v | y), a product of logs",
       gives(Score::log_product, Cut::best_k_overall),
       "the log of a product is the sum of the logs: log P(y, v) = log P(y) + log p(v | y). (At the first step "
       "log P(y) = 0, so a product scores every candidate 0.)"},
      {"own_score_dropped", "your score is log p(v | y) alone: the hypothesis's own log P is not carried",
       gives(Score::token_only, Cut::best_k_overall),
       "a candidate's score is its whole sequence's: log P(y) + log p(v | y). Scored by the last token alone, a "
       "weak hypothesis with one likely next word beats a strong one."},
      {"k_per_hypothesis", "you keep the k best extensions of every hypothesis, R · k of them",
       gives(Score::log_sum, Cut::best_k_each_sorted), per_hypothesis_fix},
      {"k_per_hypothesis", "you keep the k best extensions of every hypothesis, R · k, hypothesis by hypothesis",
       gives(Score::log_sum, Cut::best_k_each_in_row_order), per_hypothesis_fix},
  };
}

const std::string hint =
    "The k best of every live hypothesis extended by every possible token (R · V candidates, "
    "log P(y) + log p(v | y), skipping −∞), best first. The library's step is best_candidates() in "
    "src/decode/beam_search.cpp.";

void check_search(int64_t k, int64_t steps) {
  TableScorer scorer;
  BeamLog log;
  beam_search(scorer, {steps + 1}, k, /*alpha=*/0, &log);            // the last step (at the limit) is not compared
  std::vector<LiveHypothesis> live{LiveHypothesis{}};                // the empty prefix, log P = 0
  for (int64_t step = 0; step < steps; ++step) {
    std::vector<LiveHypothesis> expected;
    for (const BeamCandidateLog& candidate : log.at(static_cast<size_t>(step))) {
      if (candidate.fate == "kept") expected.push_back({candidate.tokens, candidate.log_prob});
    }
    std::vector<double> log_probs;                                   // [R, V]
    for (const LiveHypothesis& h : live) {
      const std::vector<double> row = table_for(h.tokens);
      log_probs.insert(log_probs.end(), row.begin(), row.end());
    }
    const std::vector<LiveHypothesis> yours = beam_step(live, log_probs, vocabulary, k);

    std::vector<std::string> details{"k = " + std::to_string(k) + ", V = " + std::to_string(vocabulary) +
                                     " (tokens 0, 1, 2 are pad, bos, eos: log p = −inf), step " + std::to_string(step)};
    for (size_t r = 0; r < live.size(); ++r) {
      std::vector<real> row(log_probs.begin() + static_cast<std::ptrdiff_t>(r * vocabulary),
                            log_probs.begin() + static_cast<std::ptrdiff_t>((r + 1) * vocabulary));
      details.push_back("live[" + std::to_string(r) + "] " + hypothesis_text(live[r]) + "   log p(v | it) = " +
                        numbers(row, vocabulary));
    }
    details.push_back("expected, best first:");
    for (const LiveHypothesis& h : expected) details.push_back("  " + hypothesis_text(h));
    details.push_back("yours:");
    for (const LiveHypothesis& h : yours) details.push_back("  " + hypothesis_text(h));
    if (yours.empty()) details.push_back("  (none)");

    std::vector<std::string> input(details.begin(), details.begin() + static_cast<std::ptrdiff_t>(live.size() + 1));
    input.push_back("(a table [kept, " + std::to_string(step + 2) + "]: a hypothesis a row, its tokens, then log P)");
    diagnose(as_table(expected), as_table(yours), usual_mistakes(live, log_probs, static_cast<size_t>(k)), input,
             {1e-12, 1e-12});

    std::string why = hint;
    if (yours.empty()) {
      why = "Your beam_step keeps nothing (the shipped stub): fill in the TODO in exercises/beam_step/exercise.cpp. " +
            hint;
    }
    if (yours.size() != expected.size()) {
      fail("step " + std::to_string(step) + ": " + std::to_string(expected.size()) +
               " hypotheses expected, yours has " + std::to_string(yours.size()),
           details, why);
    }
    for (size_t c = 0; c < expected.size(); ++c) {
      const bool same_tokens = yours[c].tokens == expected[c].tokens;
      if (same_tokens && close(expected[c].log_prob, yours[c].log_prob, {1e-12, 1e-12})) continue;
      if (same_tokens) {
        why = "The right tokens, the wrong log P: it is the hypothesis's log P plus the token's log p, a sum. " + hint;
      } else if (c > 0 && yours[c].log_prob > yours[c - 1].log_prob) {
        why = "Yours are not best first: sort by log P, highest first. " + hint;
      }
      fail("step " + std::to_string(step) + ": hypothesis " + std::to_string(c) + " differs", details, why);
    }
    live = expected;
  }
}

void check() {
  check_search(/*k=*/3, /*steps=*/4);
  check_search(/*k=*/1, /*steps=*/2);                                // a beam of 1 is greedy decoding
  check_search(/*k=*/5, /*steps=*/3);
}

}  // namespace
}  // namespace attnlab::exercises

int main() { return attnlab::exercises::run_check("beam_step", attnlab::exercises::hint, attnlab::exercises::check); }
