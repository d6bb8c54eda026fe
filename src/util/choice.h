// choice.h — a fixed choice of a config (an attention kind, a norm placement, a schedule, …) is an enum class.
//
// The config file names each value by a word ("scaled_dot", "pre", "cosine"). Beside each such enum, its chapter
// declares the words, in the enum's order, as an overload of choice_names taking a value of the enum:
//
//     enum class Norm { post, pre };
//     const std::vector<std::string>& choice_names(Norm);     // {"post", "pre"}
//
// Everything else goes through that one list: name_of(Norm::pre) is "pre", choice_named<Norm>("pre") is Norm::pre,
// and the config reader (run/config_table.h, choice_of) parses and writes the key with it. A string is compared
// once, where the config is read; inside the program a choice is a value the compiler checks (a `switch` over it
// warns when a new value is not handled).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// The word a config file uses for `value`.
template <typename Enum>
const std::string& name_of(Enum value) {
  return choice_names(value).at(static_cast<size_t>(value));
}

// The value a word names; nullopt when the word names none (the caller says what was expected).
template <typename Enum>
std::optional<Enum> choice_named(const std::string& word) {
  const std::vector<std::string>& names = choice_names(Enum{});
  const auto found = std::find(names.begin(), names.end(), word);
  if (found == names.end()) return std::nullopt;
  return static_cast<Enum>(found - names.begin());
}

// Every value of the enum, in order.
template <typename Enum>
std::vector<Enum> all_choices() {
  std::vector<Enum> values;
  for (size_t i = 0; i < choice_names(Enum{}).size(); ++i) values.push_back(static_cast<Enum>(i));
  return values;
}

}  // namespace attnlab
