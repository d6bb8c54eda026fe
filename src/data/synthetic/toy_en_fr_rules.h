// toy_en_fr_rules.h — the toy English→French grammar's phenomena (toy_en_fr_rules.cpp), used by the sentence
// builder (toy_en_fr.cpp). Each takes words and returns words: no state. The rules that merge or move words say
// where each word went (FrenchSentence::position, PlacedAdjective::position), so the builder can keep its gold
// alignment right.
#pragma once

#include <string>
#include <vector>

#include "data/synthetic/toy_en_fr_lexicon.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace toy_en_fr {

bool starts_with(const std::string& word, const std::string& prefix);
bool starts_with_vowel_sound(const std::string& word);               // école, homme (silent h), not héros
std::string elide(const std::string& word, const std::string& next);  // le → l', ce → cet, ma → mon, …

// A French sentence after elision and contraction, and where each word of the sentence before went:
//   before   je ne vais pas à le marché .       position  0 1 2 3 4 4 5 6     (à and le both became au)
//   after    je ne vais pas au marché .         contracted {4}
//   before   le homme ne dort pas .             position  0 1 2 3 4 5
//   after    l' homme ne dort pas .             elided     {0}
struct FrenchSentence {
  std::vector<std::string> words;
  std::vector<size_t> position;    // one per word before: its index in `words`
  std::vector<size_t> elided;      // indices in `words` of the words elision changed (l', n', j', d', cet, mon)
  std::vector<size_t> contracted;  // indices in `words` of the words contraction made (au, aux, du, des)
};
FrenchSentence contract(const std::vector<std::string>& words);                     // à le → au, de les → des
FrenchSentence elide_and_contract(std::vector<std::string> words);                  // both, over a sentence
std::vector<std::string> a_or_an(std::vector<std::string> words);                    // English: an apple
std::string agree_adjective(const Adjective& adjective, Gender gender, Number number);
// The agreed adjective and its place, before the noun or after it (bel, vieil, nouvel before a vowel).
struct PlacedAdjective {
  std::string form;
  Position position;
};
PlacedAdjective place_adjective(const Adjective& adjective, Gender gender, Number number, const std::string& noun);
std::string agree_determiner(const Determiner& determiner, Gender gender, Number number,
                             bool adjective_before_noun);                            // des → de before an adjective
std::string agree_verb(const Conjugation& conjugation, int verb_form);                // 0 = je … 5 = ils
std::vector<std::string> negate(const std::string& verb);                             // ne … pas

}  // namespace toy_en_fr
}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
