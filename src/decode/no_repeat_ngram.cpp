// no_repeat_ngram.cpp — the tokens that would repeat an n-gram (no_repeat_ngram.h).
#include "decode/no_repeat_ngram.h"

#include <algorithm>
#include <limits>
#include <set>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::vector<int32_t> banned_next_tokens(const std::vector<int32_t>& output, int64_t n) {
  std::vector<int32_t> banned;
  const int64_t t = static_cast<int64_t>(output.size());
  if (n <= 0 || t < n - 1) return banned;
  // The last n − 1 tokens, y_{t−n+2} … y_t, start at index t − n + 1 (0-based); every earlier start i whose
  // n − 1 tokens match them bans the token that followed there, y_{i+n−1}.
  const int64_t context = n - 1, suffix = t - context;
  for (int64_t i = 0; i + context < t; ++i) {
    if (!std::equal(output.begin() + i, output.begin() + i + context, output.begin() + suffix)) continue;
    const int32_t next = output[static_cast<size_t>(i + context)];
    if (std::find(banned.begin(), banned.end(), next) == banned.end()) banned.push_back(next);
  }
  return banned;
}

template <typename Number>
void ban_tokens(Number* row, const std::vector<int32_t>& banned) {
  for (int32_t v : banned) row[v] = -std::numeric_limits<Number>::infinity();
}
template void ban_tokens<float>(float*, const std::vector<int32_t>&);
template void ban_tokens<double>(double*, const std::vector<int32_t>&);

bool has_repeated_ngram(const std::vector<int32_t>& tokens, int64_t n) {
  if (n < 1) return false;
  std::set<std::vector<int32_t>> seen;
  for (size_t i = 0; i + static_cast<size_t>(n) <= tokens.size(); ++i) {
    if (!seen.insert(std::vector<int32_t>(tokens.begin() + i, tokens.begin() + i + n)).second) return true;
  }
  return false;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
