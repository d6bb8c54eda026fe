// check.cpp — clipped_ngram_counts against the library's bleu_sentence_stats (decode/bleu.h), n = 1 … 4.
#include <map>
#include <string>
#include <vector>

#include "check.h"
#include "decode/bleu.h"
#include "exercise.h"

namespace attnlab::exercises {
namespace {

const std::string hint =
    "The total counts every n-gram of the hypothesis (max(0, |hyp| − n + 1)); the correct count gives each "
    "distinct n-gram g min(count_hyp(g), count_ref(g)). The library: bleu_sentence_stats in src/decode/bleu.cpp.";

std::string sentence(const std::vector<std::string>& tokens) {
  std::string text;
  for (const std::string& t : tokens) text += (text.empty() ? "" : " ") + t;
  return "\"" + text + "\"";
}

// "the cat ×2 (reference ×1)": each n-gram of the hypothesis with its counts on both sides, for the message.
std::vector<std::string> ngram_table(const std::vector<std::string>& hyp, const std::vector<std::string>& ref, int n) {
  auto count = [n](const std::vector<std::string>& tokens) {
    std::map<std::string, int64_t> counts;
    for (size_t start = 0; start + static_cast<size_t>(n) <= tokens.size(); ++start) {
      std::string ngram;
      for (size_t i = start; i < start + static_cast<size_t>(n); ++i) ngram += (i > start ? " " : "") + tokens[i];
      ++counts[ngram];
    }
    return counts;
  };
  const std::map<std::string, int64_t> hyp_counts = count(hyp), ref_counts = count(ref);
  std::vector<std::string> lines;
  for (const auto& [ngram, c] : hyp_counts) {
    const auto found = ref_counts.find(ngram);
    lines.push_back("  \"" + ngram + "\" ×" + std::to_string(c) + " in the hypothesis, ×" +
                    std::to_string(found == ref_counts.end() ? 0 : found->second) + " in the reference");
  }
  if (lines.empty()) lines.push_back("  (the hypothesis has no " + std::to_string(n) + "-grams)");
  return lines;
}

void check() {
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> pairs{
      {{"the", "the", "the", "the", "the", "the", "the"}, {"the", "cat", "is", "on", "the", "mat"}},   // Papineni's
      {{"the", "cat", "sat", "on", "the", "mat"}, {"the", "cat", "is", "on", "the", "mat"}},
      {{"on", "the", "mat", "the", "cat", "the", "cat"}, {"the", "cat", "on", "the", "mat", "the", "cat", "sat"}},
      {{"a", "b"}, {"a", "b", "c"}},                                                                 // shorter than n
      {{}, {"a", "b", "c"}},                                                                         // empty
  };
  for (const auto& [hyp, ref] : pairs) {
    const BleuStats stats = bleu_sentence_stats(hyp, ref);
    for (int n = 1; n <= bleu_max_order; ++n) {
      const NgramCounts yours = clipped_ngram_counts(hyp, ref, n);
      const int64_t correct = stats.correct[static_cast<size_t>(n - 1)];
      const int64_t total = stats.total[static_cast<size_t>(n - 1)];
      if (yours.correct == correct && yours.total == total) continue;
      std::vector<std::string> details{"hypothesis " + sentence(hyp), "reference  " + sentence(ref),
                                       "n = " + std::to_string(n) + ": expected correct " + std::to_string(correct) +
                                           ", total " + std::to_string(total) + "; yours correct " +
                                           std::to_string(yours.correct) + ", total " + std::to_string(yours.total),
                                       "the hypothesis's " + std::to_string(n) + "-grams:"};
      for (const std::string& line : ngram_table(hyp, ref, n)) details.push_back(line);
      std::string why = hint;
      if (yours.correct == 0 && yours.total == 0) {
        why = "Your counts are all zero (the shipped stub): fill in the TODO in exercises/bleu_counts/exercise.cpp. " +
              hint;
      } else if (yours.total == total && yours.correct > correct) {
        why = "Too many matches: an n-gram earns credit at most as often as the reference has it (clipping). " + hint;
      }
      fail("the " + std::to_string(n) + "-gram counts differ", details, why);
    }
  }
}

}  // namespace
}  // namespace attnlab::exercises

int main() { return attnlab::exercises::run_check("bleu_counts", attnlab::exercises::hint, attnlab::exercises::check); }
