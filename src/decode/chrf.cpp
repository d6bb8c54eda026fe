// chrf.cpp — character n-gram counts and the chrF score (see chrf.h).
#include "decode/chrf.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "decode/bleu.h"
#include "util/error.h"
#include "util/utf8.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace {

// The text without white space, as its characters (code points); an invalid byte counts as one character.
std::vector<std::string_view> characters_without_space(const std::string& joined) {
  std::vector<std::string_view> characters;
  const std::string_view text = joined;
  for (size_t at = 0; at < text.size();) {
    size_t length = std::max<size_t>(decode_utf8(text, at).length, 1);
    characters.push_back(text.substr(at, length));
    at += length;
  }
  return characters;
}

// Counts of the character n-grams of one order; an n-gram is the bytes of its n characters.
std::unordered_map<std::string, int64_t> char_ngram_counts(const std::vector<std::string_view>& characters, size_t n) {
  std::unordered_map<std::string, int64_t> counts;
  for (size_t start = 0; start + n <= characters.size(); ++start) {
    std::string ngram;
    for (size_t k = 0; k < n; ++k) ngram += characters[start + k];
    ++counts[ngram];
  }
  return counts;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += word;
  return out;
}

}  // namespace

void ChrfStats::add(const ChrfStats& other) {
  for (size_t n = 0; n < static_cast<size_t>(chrf_char_order); ++n) {
    hyp[n] += other.hyp[n];
    ref[n] += other.ref[n];
    match[n] += other.match[n];
  }
}

ChrfStats chrf_sentence_stats(const std::string& hypothesis, const std::string& reference) {
  const std::string hyp_text = join(split_white_space(hypothesis)), ref_text = join(split_white_space(reference));
  const std::vector<std::string_view> hyp_chars = characters_without_space(hyp_text);
  const std::vector<std::string_view> ref_chars = characters_without_space(ref_text);
  ChrfStats stats;
  for (size_t n = 1; n <= static_cast<size_t>(chrf_char_order); ++n) {
    const auto hyp_counts = char_ngram_counts(hyp_chars, n), ref_counts = char_ngram_counts(ref_chars, n);
    int64_t hyp_total = 0, ref_total = 0, matched = 0;
    for (const auto& [ngram, count] : hyp_counts) {
      hyp_total += count;
      if (auto found = ref_counts.find(ngram); found != ref_counts.end()) matched += std::min(count, found->second);
    }
    for (const auto& [ngram, count] : ref_counts) ref_total += count;
    // As sacreBLEU: hypothesis n-grams are not counted when the reference has none of this order.
    stats.hyp[n - 1] = ref_counts.empty() ? 0 : hyp_total;
    stats.ref[n - 1] = ref_total;
    stats.match[n - 1] = matched;
  }
  return stats;
}

double chrf_from_stats(const ChrfStats& stats) {
  double precision = 0, recall = 0;
  int effective_order = 0;
  for (size_t n = 0; n < static_cast<size_t>(chrf_char_order); ++n) {
    if (stats.hyp[n] > 0 && stats.ref[n] > 0) {
      precision += static_cast<double>(stats.match[n]) / static_cast<double>(stats.hyp[n]);
      recall += static_cast<double>(stats.match[n]) / static_cast<double>(stats.ref[n]);
      ++effective_order;
    }
  }
  if (effective_order == 0) return 0;
  precision /= effective_order;
  recall /= effective_order;
  if (precision + recall == 0) return 0;
  const double beta2 = chrf_beta * chrf_beta;
  double score = (1 + beta2) * precision * recall;                 // in sacreBLEU's order of operations
  score /= beta2 * precision + recall;
  return 100 * score;
}

double corpus_chrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
  if (hypotheses.size() != references.size()) {
    throw Error("chrF needs one reference per hypothesis: got " + std::to_string(hypotheses.size()) +
                " hypotheses and " + std::to_string(references.size()) + " references");
  }
  ChrfStats corpus;
  for (size_t i = 0; i < hypotheses.size(); ++i) corpus.add(chrf_sentence_stats(hypotheses[i], references[i]));
  return chrf_from_stats(corpus);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
