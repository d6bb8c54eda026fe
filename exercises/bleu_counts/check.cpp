// check.cpp — clipped_ngram_counts against the library's bleu_sentence_stats (decode/bleu.h), n = 1 … 4.
//
// For each sentence pair the counts of all four orders form a table [2, 4] — row 0 correct_n, row 1 total_n, one
// column per n — yours, the library's, and what each usual mistake gives (counted here with one rule changed).
// When yours is a mistake's table, the check names it; otherwise it shows the first order that differs, with every
// n-gram of the hypothesis and its count on both sides.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "check.h"
#include "decode/bleu.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

using Tokens = std::vector<std::string>;

const std::string hint =
    "The total counts every n-gram of the hypothesis (max(0, |hyp| − n + 1)); the correct count gives each "
    "distinct n-gram g min(count_hyp(g), count_ref(g)). The library: bleu_sentence_stats in src/decode/bleu.cpp.";

std::string sentence(const Tokens& tokens) {
  std::string text;
  for (const std::string& t : tokens) text += (text.empty() ? "" : " ") + t;
  return "\"" + text + "\"";
}

// How often each n-gram ("the cat") occurs in `tokens`; with last_included false, the last one is missed.
std::map<std::string, int64_t> ngram_counts(const Tokens& tokens, int n, bool last_included = true) {
  std::map<std::string, int64_t> counts;
  const size_t length = static_cast<size_t>(n);
  for (size_t start = 0; start + length + (last_included ? 0 : 1) <= tokens.size(); ++start) {
    std::string ngram;
    for (size_t i = start; i < start + length; ++i) ngram += (i > start ? " " : "") + tokens[i];
    ++counts[ngram];
  }
  return counts;
}

// The counting rules, and the one a usual mistake changes.
enum class Credit { clipped, hypothesis_count, reference_count };
struct Rules {
  Credit credit = Credit::clipped;   // what a matched n-gram earns: min(hyp, ref), the hyp's count, the ref's count
  bool last_included = true;         // false: the n-gram ending on the last token is missed (off by one)
  bool repeats_in_total = true;      // false: the total counts distinct n-grams
};

// correct_n and total_n for n = 1 … 4 under `rules`, as a table [2, 4]: row 0 correct, row 1 total.
Tensor counts_table(const Tokens& hyp, const Tokens& ref, Rules rules) {
  Tensor table = Tensor::zeros({2, bleu_max_order});                 // [2, 4]
  for (int n = 1; n <= bleu_max_order; ++n) {
    const std::map<std::string, int64_t> ref_counts = ngram_counts(ref, n, rules.last_included);
    for (const auto& [ngram, count] : ngram_counts(hyp, n, rules.last_included)) {
      const auto found = ref_counts.find(ngram);
      const int64_t in_ref = found == ref_counts.end() ? 0 : found->second;
      const int64_t earned = rules.credit == Credit::clipped           ? std::min(count, in_ref)
                             : rules.credit == Credit::hypothesis_count ? (in_ref > 0 ? count : 0)
                                                                        : in_ref;
      table.data()[n - 1] += static_cast<real>(earned);
      table.data()[bleu_max_order + n - 1] += static_cast<real>(rules.repeats_in_total ? count : 1);
    }
  }
  return table;
}

std::vector<Mistake> usual_mistakes(const Tokens& hyp, const Tokens& ref) {
  auto gives = [&](Rules rules) { return counts_table(hyp, ref, rules); };
  return {
      {"unclipped", "your correct counts are not clipped: a matched n-gram earns its full count in the hypothesis",
       gives({Credit::hypothesis_count, true, true}),
       "clip each distinct n-gram g: it earns min(count_hyp(g), count_ref(g)), never more than the reference has "
       "it. Unclipped, \"the the the the the the the\" scores 7 of 7 against \"the cat is on the mat\"."},
      {"reference_count", "a matched n-gram earns the reference's count, even where the hypothesis has it less often",
       gives({Credit::reference_count, true, true}),
       "clipping takes the smaller count, min(count_hyp(g), count_ref(g)): no credit for copies of g you lack."},
      {"last_ngram_missed", "your n-grams miss the last one of each sentence: off by one at the sentence's end",
       gives({Credit::clipped, false, true}),
       "a sentence of L tokens has L − n + 1 n-grams, starting at 0 … L − n: the loop runs while start + n ≤ L "
       "(not <), so the last n-gram ends on the last token."},
      {"total_distinct", "your total counts the distinct n-grams, not every one", gives({Credit::clipped, true, false}),
       "total_n counts every n-gram of the hypothesis, repeats included: L − n + 1 of them (p_n's denominator)."},
  };
}

// "the cat ×2 (reference ×1)": each n-gram of the hypothesis with its counts on both sides, for the message.
std::vector<std::string> ngram_table(const Tokens& hyp, const Tokens& ref, int n) {
  const std::map<std::string, int64_t> hyp_counts = ngram_counts(hyp, n), ref_counts = ngram_counts(ref, n);
  std::vector<std::string> lines;
  for (const auto& [ngram, c] : hyp_counts) {
    const auto found = ref_counts.find(ngram);
    lines.push_back("  \"" + ngram + "\" ×" + std::to_string(c) + " in the hypothesis, ×" +
                    std::to_string(found == ref_counts.end() ? 0 : found->second) + " in the reference");
  }
  if (lines.empty()) lines.push_back("  (the hypothesis has no " + std::to_string(n) + "-grams)");
  return lines;
}

void check_pair(const Tokens& hyp, const Tokens& ref) {
  const BleuStats stats = bleu_sentence_stats(hyp, ref);
  Tensor expected = Tensor::zeros({2, bleu_max_order});              // [2, 4]: correct_n, total_n
  Tensor yours = Tensor::zeros({2, bleu_max_order});                 // [2, 4]
  for (int n = 1; n <= bleu_max_order; ++n) {
    const NgramCounts counts = clipped_ngram_counts(hyp, ref, n);
    expected.data()[n - 1] = static_cast<real>(stats.correct[static_cast<size_t>(n - 1)]);
    expected.data()[bleu_max_order + n - 1] = static_cast<real>(stats.total[static_cast<size_t>(n - 1)]);
    yours.data()[n - 1] = static_cast<real>(counts.correct);
    yours.data()[bleu_max_order + n - 1] = static_cast<real>(counts.total);
  }
  const std::vector<std::string> pair{"hypothesis " + sentence(hyp), "reference  " + sentence(ref)};
  std::vector<std::string> input = pair;
  input.push_back("(a table [2, 4]: row 0 correct_n, row 1 total_n, for n = 1 … 4)");
  diagnose(expected, yours, usual_mistakes(hyp, ref), input);

  for (int n = 1; n <= bleu_max_order; ++n) {
    const int64_t correct = stats.correct[static_cast<size_t>(n - 1)];
    const int64_t total = stats.total[static_cast<size_t>(n - 1)];
    const int64_t your_correct = static_cast<int64_t>(yours.data()[n - 1]);
    const int64_t your_total = static_cast<int64_t>(yours.data()[bleu_max_order + n - 1]);
    if (your_correct == correct && your_total == total) continue;
    std::vector<std::string> details = pair;
    details.push_back("n = " + std::to_string(n) + ": expected correct " + std::to_string(correct) + ", total " +
                      std::to_string(total) + "; yours correct " + std::to_string(your_correct) + ", total " +
                      std::to_string(your_total));
    details.push_back("the hypothesis's " + std::to_string(n) + "-grams:");
    for (const std::string& line : ngram_table(hyp, ref, n)) details.push_back(line);
    std::string why = hint;
    if (all_zero(yours)) {
      why = "Your counts are all zero (the shipped stub): fill in the TODO in exercises/bleu_counts/exercise.cpp. " +
            hint;
    } else if (your_total == total && your_correct > correct) {
      why = "Too many matches: an n-gram earns credit at most as often as the reference has it (clipping). " + hint;
    }
    fail("the " + std::to_string(n) + "-gram counts differ", details, why);
  }
}

void check() {
  const std::vector<std::pair<Tokens, Tokens>> pairs{
      // First a pair where every usual mistake shows: "cat" more often in the hypothesis than in the reference,
      // "the" less often, a repeated bigram, and a last token that matches.
      {{"the", "cat", "the", "cat", "sat", "on", "a", "mat"},
       {"the", "cat", "sat", "on", "the", "mat", "by", "the", "door", "of", "the", "house"}},
      {{"the", "the", "the", "the", "the", "the", "the"}, {"the", "cat", "is", "on", "the", "mat"}},   // Papineni's
      {{"the", "cat", "sat", "on", "the", "mat"}, {"the", "cat", "is", "on", "the", "mat"}},
      {{"on", "the", "mat", "the", "cat", "the", "cat"}, {"the", "cat", "on", "the", "mat", "the", "cat", "sat"}},
      {{"a", "b"}, {"a", "b", "c"}},                                                                 // shorter than n
      {{}, {"a", "b", "c"}},                                                                         // empty
  };
  for (const auto& [hyp, ref] : pairs) check_pair(hyp, ref);
}

}  // namespace
}  // namespace attnlab::exercises

int main() { return attnlab::exercises::run_check("bleu_counts", attnlab::exercises::hint, attnlab::exercises::check); }
