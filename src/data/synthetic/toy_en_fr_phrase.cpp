// toy_en_fr_phrase.cpp — a phrase in both languages with its gold alignment (toy_en_fr_phrase.h): translating a
// unit of words, appending one phrase to another, and the finished sentence as the corpus holds it.
#include "data/synthetic/toy_en_fr_phrase.h"

#include <map>
#include <set>
#include <sstream>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace toy_en_fr {

namespace {

std::string join_words(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& word : words) line += (line.empty() ? "" : " ") + word;
  return line;
}

}  // namespace

std::vector<std::string> split_words(const std::string& several_words) {
  std::istringstream in(several_words);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

int32_t Phrase::translate(const std::string& english_words, const std::vector<std::string>& french_words) {
  const auto first_english = static_cast<int32_t>(english.size());
  const auto first_french = static_cast<int32_t>(french.size());
  for (const std::string& word : split_words(english_words)) add_english(word);
  for (const std::string& word : french_words) add_french(word);
  link(first_english, first_french, sure);
  for (auto e = first_english + 1; e < static_cast<int32_t>(english.size()); ++e) link(e, first_french, possible);
  for (auto f = first_french + 1; f < static_cast<int32_t>(french.size()); ++f) link(first_english, f, possible);
  return first_french;
}

void Phrase::append(const Phrase& other) {
  const auto english_shift = static_cast<int32_t>(english.size());
  const auto french_shift = static_cast<int32_t>(french.size());
  english.insert(english.end(), other.english.begin(), other.english.end());
  french.insert(french.end(), other.french.begin(), other.french.end());
  for (const Link& other_link : other.links) {
    link(other_link.english + english_shift, other_link.french + french_shift, other_link.sure);
  }
  for (const auto& [name, words] : other.tags) {
    for (int32_t word : words) tag(name, word + french_shift);
  }
}

AlignedPair gold_pair(const Phrase& words, const std::vector<std::string>& english, const FrenchSentence& french) {
  auto moved = [&french](int32_t word) { return static_cast<int32_t>(french.position[static_cast<size_t>(word)]); };
  std::map<AlignmentLink, bool> links;  // link → sure
  for (const Link& link : words.links) links[{link.english, moved(link.french)}] |= link.sure;
  std::map<std::string, std::set<int32_t>> tags;
  for (const auto& [name, french_words] : words.tags) {
    for (int32_t word : french_words) tags[name].insert(moved(word));
  }
  for (size_t word : french.elided) tags["elision"].insert(static_cast<int32_t>(word));
  for (size_t word : french.contracted) tags["contraction"].insert(static_cast<int32_t>(word));

  AlignedPair pair{join_words(english), join_words(french.words), {}, {}};
  for (const auto& [link, is_sure] : links) {
    (is_sure ? pair.alignment.sure : pair.alignment.possible).push_back(link);
  }
  for (const auto& [name, french_words] : tags) {
    pair.tags.push_back({name, {french_words.begin(), french_words.end()}});
  }
  return pair;
}

}  // namespace toy_en_fr
}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
