// toy_en_fr_phrase.h — a phrase of the toy English→French grammar, built in both languages at once with the gold
// alignment between its words (data/alignment.h) and the phenomena it shows: what the sentence builder
// (toy_en_fr.cpp) assembles sentences from.
//
//   Phrase p;  p.translate("look for", {"cherche"});     english: look for   french: cherche
//                                                        links:   look-cherche (sure), for?cherche (possible)
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/synthetic/synthetic.h"
#include "data/synthetic/toy_en_fr_lexicon.h"
#include "data/synthetic/toy_en_fr_rules.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace toy_en_fr {

std::vector<std::string> split_words(const std::string& several_words);  // "you all" → {"you", "all"}

// A link of the gold alignment inside a phrase: English word `english` made French word `french` (both indices
// within the phrase), surely or possibly (alignment.h).
struct Link {
  int32_t english;
  int32_t french;
  bool sure;
};
constexpr bool sure = true;
constexpr bool possible = false;

// A phrase, built in both languages at once, with the links between its words and the phenomena it shows (each
// a name and the French words it concerns). Appending one phrase to another shifts its indices.
struct Phrase {
  std::vector<std::string> english;
  std::vector<std::string> french;
  std::vector<Link> links;
  std::map<std::string, std::vector<int32_t>> tags;

  int32_t add_english(const std::string& word) {  // returns the word's index
    english.push_back(word);
    return static_cast<int32_t>(english.size()) - 1;
  }
  int32_t add_french(const std::string& word) {
    french.push_back(word);
    return static_cast<int32_t>(french.size()) - 1;
  }
  void link(int32_t english_word, int32_t french_word, bool is_sure = sure) {
    links.push_back({english_word, french_word, is_sure});
  }
  void tag(const std::string& name, int32_t french_word) { tags[name].push_back(french_word); }

  // A word or a unit of words and its translation: "cat" ↔ "chat", "look for" ↔ "cherche", "you all" ↔ "vous",
  // "near" ↔ "près de". The first words of the two sides are linked sure; each further word of either side is
  // linked possible to the other side's first word: it only completes the unit (for, all, de) and has no word
  // of its own on the other side — Och & Ney's possible links for "idiomatic expressions and function words".
  // Returns the index of the first French word.
  int32_t translate(const std::string& english_words, const std::vector<std::string>& french_words);

  // `other` after this phrase: its words, links and tags, their indices shifted past this phrase's words.
  void append(const Phrase& other);
};

// A noun phrase, with what the rest of the sentence needs to agree with it.
struct NounPhrase {
  Phrase words;
  Gender gender = masculine;
  Number number = singular;
  unsigned kind = 0;
};

// The finished sentence as the corpus holds it: `english` (the phrase's English words after a → an) and `french`
// (its French words after elision and contraction), the links and tags moved to where those rules left the French
// words — "à le" → "au" moves the links of to and the onto au. A link both sure and possible is sure; the
// words elision and contraction changed are tagged so.
AlignedPair gold_pair(const Phrase& words, const std::vector<std::string>& english, const FrenchSentence& french);

}  // namespace toy_en_fr
}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
