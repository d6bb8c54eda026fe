// suggest.cpp — Levenshtein distance by dynamic programming, one row at a time.
//
// row[j] holds the distance between the first i characters of a and the first j of b; each new row follows
// from the previous one: delete (row[j] + 1), insert (row[j-1] + 1) or substitute (diagonal + [a_i ≠ b_j]).
#include "util/suggest.h"

#include <algorithm>
#include <climits>

namespace attnlab {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  // The distance costs |word| · |candidate| steps; past its first characters a typo is no longer a typo, and a
  // 10 MB "word" (a line pasted where a name belongs) must not take seconds to refuse.
  const std::string head = word.substr(0, closest_match_most);
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const std::string& candidate : candidates) {
    size_t d = edit_distance(head, candidate);
    if (d < best_distance) best_distance = d, best = candidate;
  }
  return best;
}

std::string join(const std::vector<std::string>& words, const std::string& separator) {
  std::string text;
  for (size_t i = 0; i < words.size(); ++i) text += (i ? separator : "") + words[i];
  return text;
}

}  // namespace attnlab
