// test_bleu.cpp — BLEU and chrF give sacreBLEU's numbers: the 13a tokenizer splits what mteval-v13a splits,
// worked examples (computed by hand below, n-gram by n-gram) come out exactly, and the edge cases (an empty
// hypothesis, a hypothesis longer than its reference, a perfect match, an order with no match) behave as
// sacreBLEU's defaults say. tools/check_bleu_nltk.py compares the same numbers with NLTK.
#include <doctest/doctest.h>

#include <cmath>

#include "decode/bleu.h"
#include "decode/chrf.h"
#include "util/error.h"

using namespace attnlab;

namespace {

using Tokens = std::vector<std::string>;

double bleu(const std::string& hypothesis, const std::string& reference) {
  return corpus_bleu({hypothesis}, {reference}).score;
}

}  // namespace

TEST_CASE("13a splits off punctuation but keeps numbers, apostrophes and hyphenated words whole") {
  CHECK(tokenize_13a("Hello, world!") == Tokens{"Hello", ",", "world", "!"});
  CHECK(tokenize_13a("It costs $3.50, or 1,000 yen.") ==
        Tokens{"It", "costs", "$", "3.50", ",", "or", "1,000", "yen", "."});
  CHECK(tokenize_13a("a 10-fold increase, well-known") == Tokens{"a", "10", "-", "fold", "increase", ",", "well-known"});
  CHECK(tokenize_13a("don't (hi) a/b") == Tokens{"don't", "(", "hi", ")", "a", "/", "b"});
  CHECK(tokenize_13a("pi is 3.14.") == Tokens{"pi", "is", "3.14", "."});
  CHECK(tokenize_13a("Grüße, Welt.") == Tokens{"Grüße", ",", "Welt", "."});
  // A period between a letter and a digit is split off: the rule "after a non-digit" applies.
  CHECK(tokenize_13a("v.5") == Tokens{"v", ".", "5"});
}

TEST_CASE("13a undoes mteval's escapes and markers before splitting") {
  CHECK(tokenize_13a("&quot;hi&quot; &amp; &lt;b&gt;") == Tokens{"\"", "hi", "\"", "&", "<", "b", ">"});
  CHECK(tokenize_13a("&amp;lt;") == Tokens{"<"});              // replaced one after the other, as mteval does
  CHECK(tokenize_13a("end-\nof line<skipped>") == Tokens{"endof", "line"});
  CHECK(tokenize_13a("two\nlines") == Tokens{"two", "lines"});
  CHECK(tokenize_13a("  spaced \t out\u00a0here  ") == Tokens{"spaced", "out", "here"});  // any Unicode space
  CHECK(tokenize_13a("").empty());
}

TEST_CASE("a worked example: four n-gram precisions, the 4-gram one smoothed, brevity penalty 1") {
  // hyp "the cat sat on the mat"  ref "the cat is on the mat"   c = r = 6, so BP = 1
  //   1-grams: the×2 cat sat on mat  → the 2, cat 1, on 1, mat 1 match          p1 = 5/6
  //   2-grams: the cat | cat sat | sat on | on the | the mat → 3 in the ref      p2 = 3/5
  //   3-grams: the cat sat | cat sat on | sat on the | on the mat → 1            p3 = 1/4
  //   4-grams: the cat sat on | cat sat on the | sat on the mat → 0; "exp" smoothing, first order with no
  //            match: p4 = 1 / (2 · 3) = 1/6
  //   BLEU = 100 · (5/6 · 3/5 · 1/4 · 1/6)^(1/4) = 100 · (1/48)^(1/4) ≈ 37.99
  BleuScore score = corpus_bleu({"the cat sat on the mat"}, {"the cat is on the mat"});
  CHECK(score.stats.correct == std::array<int64_t, 4>{5, 3, 1, 0});
  CHECK(score.stats.total == std::array<int64_t, 4>{6, 5, 4, 3});
  CHECK(score.precisions[0] == doctest::Approx(100.0 * 5 / 6));
  CHECK(score.precisions[3] == doctest::Approx(100.0 / 6));
  CHECK(score.brevity_penalty == 1.0);
  CHECK(score.score == doctest::Approx(100 * std::pow(1.0 / 48, 0.25)).epsilon(1e-12));
  CHECK(score.score == doctest::Approx(37.9918).epsilon(1e-5));
}

TEST_CASE("each further order with no match halves its smoothed precision again") {
  // hyp "a b c d"  ref "a b d c":  p1 = 4/4, p2 = 1/3 ("a b"), 3-grams 0 of 2 → 1/(2·2) = 1/4,
  // 4-grams 0 of 1 → 1/(4·1) = 1/4.   BLEU = 100 · (1 · 1/3 · 1/4 · 1/4)^(1/4) = 100 · (1/48)^(1/4)
  BleuScore score = corpus_bleu({"a b c d"}, {"a b d c"});
  CHECK(score.precisions[2] == doctest::Approx(25.0));
  CHECK(score.precisions[3] == doctest::Approx(25.0));
  CHECK(score.score == doctest::Approx(100 * std::pow(1.0 / 48, 0.25)).epsilon(1e-12));
}

TEST_CASE("a short hypothesis pays the brevity penalty exp(1 - r/c)") {
  // hyp "the cat sat on the" (c = 5) is a prefix of the reference (r = 6): every precision is 1,
  // BP = exp(1 − 6/5) = exp(−0.2) ≈ 0.8187, BLEU ≈ 81.87.
  BleuScore score = corpus_bleu({"the cat sat on the"}, {"the cat sat on the mat"});
  CHECK(score.brevity_penalty == doctest::Approx(std::exp(-0.2)));
  CHECK(score.score == doctest::Approx(100 * std::exp(-0.2)).epsilon(1e-12));
}

TEST_CASE("a hypothesis longer than its reference pays in precision, not in brevity penalty") {
  // hyp "the cat sat on the mat today" (7 tokens) against "the cat sat on the mat" (6):
  // p1 = 6/7, p2 = 5/6, p3 = 4/5, p4 = 3/4, product 3/7, BP = 1.   BLEU = 100 · (3/7)^(1/4) ≈ 80.91
  BleuScore score = corpus_bleu({"the cat sat on the mat today"}, {"the cat sat on the mat"});
  CHECK(score.brevity_penalty == 1.0);
  CHECK(score.score == doctest::Approx(100 * std::pow(3.0 / 7, 0.25)).epsilon(1e-12));
}

TEST_CASE("a perfect match scores 100, and tokenisation makes spacing around punctuation irrelevant") {
  CHECK(bleu("Le chat dort sur le tapis.", "Le chat dort sur le tapis.") == doctest::Approx(100).epsilon(1e-12));
  CHECK(bleu("Le chat dort sur le tapis .", "Le chat dort sur le tapis.") == doctest::Approx(100).epsilon(1e-12));
  CHECK(bleu("le chat dort sur le tapis.", "Le chat dort sur le tapis.") < 100);   // case counts
}

TEST_CASE("clipping: repeating a reference word earns it only as often as the reference has it") {
  // hyp "the the the the the" vs ref "the cat is on the mat": the unigram "the" is clipped to 2 of 5.
  BleuScore score = corpus_bleu({"the the the the the"}, {"the cat is on the mat"});
  CHECK(score.stats.correct[0] == 2);
  CHECK(score.stats.total[0] == 5);
}

TEST_CASE("empty hypotheses: alone they score 0, in a corpus they count through the brevity penalty") {
  CHECK(bleu("", "a b c d") == 0);
  // Corpus statistics are summed: c = 6 + 0, r = 6 + 2, every precision 1, BLEU = 100 · exp(1 − 8/6).
  BleuScore score = corpus_bleu({"the cat sat on the mat", ""}, {"the cat sat on the mat", "a dog"});
  CHECK(score.score == doctest::Approx(100 * std::exp(1 - 8.0 / 6)).epsilon(1e-12));
}

TEST_CASE("no matching n-gram at all gives 0, and so do hypotheses too short to have any 4-gram") {
  CHECK(bleu("x y z w", "a b c d") == 0);
  // sacreBLEU's default (no effective order): three-token sentences have no 4-grams, p4 is 0, BLEU is 0 —
  // even for a perfect match. (NLTK's smoothed corpus_bleu gives a positive score here; see README.)
  CHECK(bleu("a b c", "a b c") == 0);
}

TEST_CASE("BLEU refuses lists of different lengths, naming both counts") {
  CHECK_THROWS_WITH_AS(corpus_bleu({"a", "b"}, {"a"}), doctest::Contains("2 hypotheses and 1 references"), Error);
}

TEST_CASE("chrF: worked examples over character n-grams with white space removed") {
  // "ab" vs "ab": orders 1 and 2 match fully; orders 3–6 have no n-grams, so they do not count. P = R = 1.
  CHECK(corpus_chrf({"ab"}, {"ab"}) == doctest::Approx(100));
  CHECK(corpus_chrf({"a b"}, {"ab"}) == doctest::Approx(100));       // white space is removed first
  // "abc" vs "abd": 1-grams 2/3, 2-grams 1/2, 3-grams 0/1 → P = R = (2/3 + 1/2 + 0) / 3 = 7/18, and
  // F = (1 + β²) P R / (β² P + R) = P when P = R.
  CHECK(corpus_chrf({"abc"}, {"abd"}) == doctest::Approx(100.0 * 7 / 18));
  // "ab" vs "abc": 1-grams match 2 (P 2/2, R 2/3), 2-grams 1 (P 1/1, R 1/2); the hypothesis has no 3-gram,
  // so order 3 drops out. P = 1, R = 7/12, F = 5 · 7/12 / (4 + 7/12) = 7/11 ≈ 63.64 — recall weighs more.
  CHECK(corpus_chrf({"ab"}, {"abc"}) == doctest::Approx(100.0 * 7 / 11));
  // "abcd" vs "ab" (longer hypothesis): the reference has no 3-grams, so the hypothesis's are not counted.
  // 1-grams P 2/4 R 2/2, 2-grams P 1/3 R 1/1: P = 5/12, R = 1, F = 5 · 5/12 / (4 · 5/12 + 1) = 25/32.
  CHECK(corpus_chrf({"abcd"}, {"ab"}) == doctest::Approx(100.0 * 25 / 32));
  CHECK(corpus_chrf({""}, {"abc"}) == 0);
  CHECK(corpus_chrf({"ß→ü"}, {"ß→ü"}) == doctest::Approx(100));     // characters, not bytes
  ChrfStats stats = chrf_sentence_stats("ßü", "ßü");
  CHECK(stats.hyp[0] == 2);
  CHECK(stats.hyp[1] == 1);
}

TEST_CASE("chrF sums statistics over the corpus before computing the F-score") {
  // ("ab" vs "ab") + ("abc" vs "abd"): 1-grams 4/5, 2-grams 2/3, 3-grams 0/1, both ways:
  // P = R = (4/5 + 2/3 + 0) / 3 = 22/45 ≈ 48.89 — not the mean of the sentence scores (100 + 38.89) / 2.
  CHECK(corpus_chrf({"ab", "abc"}, {"ab", "abd"}) == doctest::Approx(100.0 * 22 / 45));
}
