// bleu.cpp — the 13a tokenizer, clipped n-gram counts and sacreBLEU's corpus BLEU (see bleu.h).
//
// The tokenizer rules are regular expressions in sacreBLEU (tokenizer_re.py); here each is a left-to-right
// scan that does what Python's re.sub does: find a match, write its replacement, continue after the match
// (matches never overlap). All the patterns are about ASCII characters, so scanning bytes of UTF-8 gives the
// same result as scanning characters: a byte of a multi-byte character is never a digit, '.', ',' or '-'.
#include "decode/bleu.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

#include "util/error.h"
#include "util/utf8.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_period_or_comma(char c) { return c == '.' || c == ','; }

// Python's str.isspace(): Unicode white space plus the separators U+001C…U+001F.
bool is_python_space(char32_t c) {
  return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

// Byte length of the white-space character at text[at], or 0 when there is none.
size_t space_length(std::string_view text, size_t at) {
  DecodedCharacter character = decode_utf8(text, at);
  return character.length != 0 && is_python_space(character.code_point) ? character.length : 0;
}

// Python's str.replace: every non-overlapping occurrence, left to right.
std::string replace_all(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  size_t at = 0;
  while (true) {
    size_t found = text.find(from, at);
    out.append(text.substr(at, found == std::string_view::npos ? std::string_view::npos : found - at));
    if (found == std::string_view::npos) return out;
    out.append(to);
    at = found + from.size();
  }
}

// Python's str.rstrip(): drop trailing white space.
std::string_view strip_trailing_space(std::string_view text) {
  size_t end = text.size();
  while (end > 0) {
    size_t start = end - 1;                                        // back up to the start of the last character
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    if (space_length(text, start) != end - start) break;
    end = start;
  }
  return text.substr(0, end);
}

// re.sub for a two-character pattern "(x)(y)": at each i where match(text[i], text[i+1]) holds, writes
// `replacement` with '1' standing for x and '2' for y (Python's \1 and \2), then continues after the pair.
std::string substitute_pairs(const std::string& text, bool (*match)(char, char), std::string_view replacement) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (i + 1 < text.size() && match(text[i], text[i + 1])) {
      for (char r : replacement) out += r == '1' ? text[i] : r == '2' ? text[i + 1] : r;
      i += 2;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// Rule 2: each of { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ / becomes " c ".
bool is_13a_symbol(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') || (c >= '(' && c <= '+') ||
         (c >= ':' && c <= '@') || c == '/';
}

}  // namespace

std::vector<std::string> split_white_space(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  size_t at = 0;
  while (at < text.size()) {
    if (size_t length = space_length(text, at)) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
      at += length;
    } else {
      word.push_back(text[at++]);
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::vector<std::string> tokenize_13a(std::string_view line) {
  // 1. mteval-v13a's language-independent normalisation.
  std::string text = replace_all(strip_trailing_space(line), "<skipped>", "");
  text = replace_all(text, "-\n", "");
  text = replace_all(text, "\n", " ");
  text = replace_all(text, "&quot;", "\"");
  text = replace_all(text, "&amp;", "&");
  text = replace_all(text, "&lt;", "<");
  text = replace_all(text, "&gt;", ">");
  text = " " + text + " ";

  // 2. ([\{-\~\[-\` -\&\(-\+\:-\@\/]) → " \1 "
  std::string spaced;
  for (char c : text) spaced += is_13a_symbol(c) ? std::string{' ', c, ' '} : std::string(1, c);
  text = spaced;

  // 3. ([^0-9])([\.,]) → "\1 \2 "   then   ([\.,])([^0-9]) → " \1 \2"   (period or comma after, then before,
  //    a non-digit)
  text = substitute_pairs(text, [](char x, char y) { return !is_digit(x) && is_period_or_comma(y); }, "1 2 ");
  text = substitute_pairs(text, [](char x, char y) { return is_period_or_comma(x) && !is_digit(y); }, " 1 2");
  // 4. ([0-9])(-) → "\1 \2 "   (dash after a digit)
  text = substitute_pairs(text, [](char x, char y) { return is_digit(x) && y == '-'; }, "1 2 ");

  // 5. One token per white-space-separated word.
  return split_white_space(text);
}

void BleuStats::add(const BleuStats& other) {
  hyp_length += other.hyp_length;
  ref_length += other.ref_length;
  for (int n = 0; n < bleu_max_order; ++n) {
    correct[static_cast<size_t>(n)] += other.correct[static_cast<size_t>(n)];
    total[static_cast<size_t>(n)] += other.total[static_cast<size_t>(n)];
  }
}

namespace {

// Counts of every n-gram, 1 ≤ n ≤ 4, keyed by its tokens joined with a space (13a tokens hold no spaces).
std::unordered_map<std::string, int64_t> ngram_counts(const std::vector<std::string>& tokens) {
  std::unordered_map<std::string, int64_t> counts;
  for (size_t start = 0; start < tokens.size(); ++start) {
    std::string ngram = tokens[start];
    for (size_t n = 1; n <= static_cast<size_t>(bleu_max_order) && start + n <= tokens.size(); ++n) {
      if (n > 1) ngram += " " + tokens[start + n - 1];
      ++counts[ngram];
    }
  }
  return counts;
}

size_t ngram_order(const std::string& ngram) {
  return static_cast<size_t>(std::count(ngram.begin(), ngram.end(), ' ')) + 1;
}

}  // namespace

BleuStats bleu_sentence_stats(const std::vector<std::string>& hyp, const std::vector<std::string>& ref) {
  BleuStats stats;
  stats.hyp_length = static_cast<int64_t>(hyp.size());
  stats.ref_length = static_cast<int64_t>(ref.size());
  const std::unordered_map<std::string, int64_t> ref_counts = ngram_counts(ref);
  for (const auto& [ngram, count] : ngram_counts(hyp)) {
    const size_t n = ngram_order(ngram) - 1;
    stats.total[n] += count;                                        // every hypothesis n-gram …
    if (auto found = ref_counts.find(ngram); found != ref_counts.end()) {
      stats.correct[n] += std::min(count, found->second);           // … earns at most the reference's count
    }
  }
  return stats;
}

BleuScore bleu_from_stats(const BleuStats& stats) {
  BleuScore result;
  result.stats = stats;
  const double c = static_cast<double>(stats.hyp_length), r = static_cast<double>(stats.ref_length);
  result.brevity_penalty = c >= r ? 1.0 : (c > 0 ? std::exp(1 - r / c) : 0.0);

  bool any_match = false;
  for (int64_t correct : stats.correct) any_match = any_match || correct > 0;
  if (!any_match) return result;                                    // nothing matches: BLEU 0

  double smooth = 1;                                                // 2^k for the k-th order with no match
  for (size_t n = 0; n < static_cast<size_t>(bleu_max_order); ++n) {
    const double total = static_cast<double>(stats.total[n]);
    if (stats.total[n] == 0) break;                                 // no n-grams this long: p_n stays 0
    if (stats.correct[n] == 0) {
      smooth *= 2;
      result.precisions[n] = 100.0 / (smooth * total);              // "exp" smoothing
    } else {
      result.precisions[n] = 100.0 * static_cast<double>(stats.correct[n]) / total;
    }
  }
  // sacreBLEU takes log(0) as −9999999999, which makes exp(…) exactly 0; so does returning 0 here.
  double log_sum = 0;
  for (double p : result.precisions) {
    if (p == 0) return result;
    log_sum += std::log(p);
  }
  result.score = result.brevity_penalty * std::exp(log_sum / bleu_max_order);
  return result;
}

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses, const std::vector<std::string>& references) {
  if (hypotheses.size() != references.size()) {
    throw Error("BLEU needs one reference per hypothesis: got " + std::to_string(hypotheses.size()) +
                " hypotheses and " + std::to_string(references.size()) + " references");
  }
  BleuStats corpus;
  for (size_t i = 0; i < hypotheses.size(); ++i) {
    corpus.add(bleu_sentence_stats(tokenize_13a(hypotheses[i]), tokenize_13a(references[i])));
  }
  return bleu_from_stats(corpus);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
