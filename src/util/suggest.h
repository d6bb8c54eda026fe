// suggest.h — "did you mean …?": the closest valid name to a mistyped one.
//
// Used wherever a user types a name attnlab must recognise — config keys, attention kinds, op names — so an
// error can say what was probably meant. Closeness is the Levenshtein edit distance: the fewest single-character
// insertions, deletions and substitutions that turn one string into the other.
#pragma once

#include <string>
#include <vector>

namespace attnlab {

size_t edit_distance(const std::string& a, const std::string& b);
// The candidate with the smallest edit distance to `word` (the first, on ties); empty when there are none. Only
// the first closest_match_most bytes of a longer word are compared.
constexpr size_t closest_match_most = 256;
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);
// "a, b, c"
std::string join(const std::vector<std::string>& words, const std::string& separator = ", ");

}  // namespace attnlab
