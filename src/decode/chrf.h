// chrf.h — chrF: character n-gram F-score (Popović, 2015), computed as sacreBLEU 2.x's default CHRF().
//
// Characters, not words: a translation with the right stem but the wrong ending ("maisons" for "maison")
// still earns most of the credit, which makes chrF kinder than BLEU to morphology and to small test sets.
//
// White space is removed from both sides first ("the cat" → "thecat"); then for every order n = 1 … 6, summed
// over the corpus:
//   hyp_n   = # character n-grams of the hypotheses      (counted only when the reference has n-grams of order n)
//   ref_n   = # character n-grams of the references
//   match_n = Σ_g min(count_hyp(g), count_ref(g))        (clipped, as in BLEU)
// Precision and recall are averaged over the orders where hyp_n > 0 and ref_n > 0 ("effective order"):
//   P = mean_n match_n / hyp_n        R = mean_n match_n / ref_n
//   chrF = 100 · (1 + β²) · P · R / (β² · P + R)          β = 2: recall counts twice as much as precision
// (0 when P + R = 0). That is sacreBLEU's chrF2 with char_order 6, word_order 0, eps_smoothing off.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

constexpr int chrf_char_order = 6;
constexpr double chrf_beta = 2;

struct ChrfStats {
  std::array<int64_t, chrf_char_order> hyp{}, ref{}, match{};  // per order n = 1 … 6
  void add(const ChrfStats& other);
};

// The statistics of one hypothesis against one reference (raw, detokenised text).
ChrfStats chrf_sentence_stats(const std::string& hypothesis, const std::string& reference);
// chrF (0–100) from (corpus) statistics.
double chrf_from_stats(const ChrfStats& stats);
// Corpus chrF; throws attnlab::Error when the lists differ in length.
double corpus_chrf(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
