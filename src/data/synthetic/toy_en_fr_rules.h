// toy_en_fr_rules.h — the toy English→French grammar's phenomena (toy_en_fr_rules.cpp), used by the sentence
// builder (toy_en_fr.cpp). Each takes words and returns words: no state.
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
std::vector<std::string> contract(const std::vector<std::string>& words);            // à le → au, de les → des
std::vector<std::string> elide_and_contract(std::vector<std::string> words);         // both, over a sentence
std::vector<std::string> a_or_an(std::vector<std::string> words);                    // English: an apple
std::string agree_adjective(const Adjective& adjective, Gender gender, Number number);
// Appends the agreed adjective to the words before the noun or after it (bel, vieil, nouvel before a vowel).
void place_adjective(const Adjective& adjective, Gender gender, Number number, const std::string& noun,
                     std::vector<std::string>& before, std::vector<std::string>& after);
std::string agree_determiner(const Determiner& determiner, Gender gender, Number number,
                             bool adjective_before_noun);                            // des → de before an adjective
std::string agree_verb(const Conjugation& conjugation, int verb_form);                // 0 = je … 5 = ils
std::vector<std::string> negate(const std::string& verb);                             // ne … pas

}  // namespace toy_en_fr
}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
