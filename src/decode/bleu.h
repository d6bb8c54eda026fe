// bleu.h — BLEU: how many of the hypothesis's word n-grams also appear in the reference (Papineni et al., 2002),
// computed exactly as sacreBLEU 2.x computes it by default, so numbers compare with published ones.
//
// Over the whole corpus (not averaged per sentence), for n = 1 … 4:
//   p_n = Σ_sentences Σ_{g ∈ n-grams(hyp)} min(count_hyp(g), count_ref(g))  /  Σ_sentences #n-grams(hyp)
// (a hypothesis n-gram is "clipped": it earns credit at most as often as the reference has it), then
//   BLEU = BP · exp( (1/4) Σ_n log p_n )          BP = 1 if c ≥ r, else exp(1 − r/c)
// with c and r the total hypothesis and reference lengths in tokens (BP = 0 when c = 0). Scaled to 0–100.
//
// sacreBLEU's defaults, reproduced here:
//   * tokenizer "13a" (the WMT mteval-v13a.pl rules, see tokenize_13a below) applied to detokenised text;
//   * smoothing "exp": the k-th order whose clipped count is 0 gets p_n = 1 / (2^k · total_n) instead of 0,
//     so one missing order does not zero the score of a whole corpus;
//   * if no n-gram of any order matches, BLEU = 0; if the hypotheses have no n-grams of some order at all
//     (every sentence shorter than n tokens), that order's p_n is 0 and BLEU is 0.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

constexpr int bleu_max_order = 4;

// sacreBLEU's "13a" tokenizer (mteval-v13a.pl), in this order:
//   1. trailing white space is removed; "<skipped>" and "-\n" are deleted, "\n" becomes a space;
//      &quot; &amp; &lt; &gt; become " & < > (one after the other, as in the Perl script);
//   2. each of { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ / becomes a token of its own
//      (the apostrophe, '-', '.' and ',' do not);
//   3. '.' and ',' are split off unless between two digits: "a." → "a ." but "3.14" and "1,000" stay;
//      (precisely: after a non-digit, then before a non-digit — two separate passes);
//   4. '-' after a digit is split off: "10-fold" → "10 - fold", while "well-known" stays one token;
//   5. the text is split at white space (Python's str.split: Unicode spaces and U+001C…U+001F).
std::vector<std::string> tokenize_13a(std::string_view line);

// Splits at white space as Python's str.split() does (also used by chrF to remove white space).
std::vector<std::string> split_white_space(std::string_view text);

// BLEU's sufficient statistics; those of a corpus are the sums of its sentences'.
struct BleuStats {
  int64_t hyp_length = 0, ref_length = 0;                   // c and r, in tokens
  std::array<int64_t, bleu_max_order> correct{}, total{};   // clipped matches and hypothesis n-grams, n = 1…4
  void add(const BleuStats& other);
};

// The statistics of one tokenised hypothesis against one tokenised reference.
BleuStats bleu_sentence_stats(const std::vector<std::string>& hyp, const std::vector<std::string>& ref);

struct BleuScore {
  double score = 0;                                  // 0–100
  double brevity_penalty = 0;
  std::array<double, bleu_max_order> precisions{};   // p_n in percent, after smoothing
  BleuStats stats;
};

// BLEU from (corpus) statistics, with sacreBLEU's "exp" smoothing.
BleuScore bleu_from_stats(const BleuStats& stats);

// Corpus BLEU of detokenised hypotheses against one reference each (13a tokens). Throws attnlab::Error when
// the two lists differ in length.
BleuScore corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
