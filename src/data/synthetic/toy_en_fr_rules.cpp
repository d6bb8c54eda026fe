// toy_en_fr_rules.cpp — the toy English→French grammar's phenomena, one small function each: how French words
// change with their neighbours (elision, contraction), agree with their noun or subject (adjectives, determiners,
// verbs), where an adjective stands, and negation; plus English's a → an. toy_en_fr.cpp builds the sentences from
// them; the top of that file shows them at work on one sentence.
#include "data/synthetic/toy_en_fr_rules.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace toy_en_fr {

bool starts_with(const std::string& word, const std::string& prefix) { return word.rfind(prefix, 0) == 0; }

bool starts_with_vowel_sound(const std::string& word) {
  static const std::vector<std::string> vowels = {"a", "e", "i", "o", "u", "y", "à", "â", "é", "è", "ê",
                                                  "ë", "î", "ï", "ô", "ù", "û", "œ"};
  for (const std::string& vowel : vowels) {
    if (starts_with(word, vowel)) return true;
  }
  return silent_h_words.count(word) > 0;
}

// Elision: before a vowel sound some short words lose their vowel (le, la → l'; je → j'; ne → n'; de → d'),
// and some change form instead (ce → cet; the feminine possessives ma, sa → mon, son: mon école).
std::string elide(const std::string& word, const std::string& next) {
  static const std::map<std::string, std::string> before_vowel = {
      {"le", "l'"}, {"la", "l'"}, {"je", "j'"}, {"ne", "n'"}, {"de", "d'"},
      {"ce", "cet"}, {"ma", "mon"}, {"sa", "son"}};
  auto found = before_vowel.find(word);
  if (found == before_vowel.end() || !starts_with_vowel_sound(next)) return word;
  return found->second;
}

// Contraction: à and de merge with the articles le and les (never with la or l'):
//   à + le → au,  à + les → aux,  de + le → du,  de + les → des.
// Both words of a pair go to the merged word's position: "to the" is aligned to au, word for word.
FrenchSentence contract(const std::vector<std::string>& words) {
  static const std::map<std::pair<std::string, std::string>, std::string> merged = {
      {{"à", "le"}, "au"}, {{"à", "les"}, "aux"}, {{"de", "le"}, "du"}, {{"de", "les"}, "des"}};
  FrenchSentence result;
  for (size_t i = 0; i < words.size(); ++i) {
    auto found = i + 1 < words.size() ? merged.find({words[i], words[i + 1]}) : merged.end();
    result.position.push_back(result.words.size());
    if (found != merged.end()) {
      result.contracted.push_back(result.words.size());
      result.words.push_back(found->second);
      result.position.push_back(result.words.size() - 1);
      ++i;   // the article is part of the merged word
    } else {
      result.words.push_back(words[i]);
    }
  }
  return result;
}

// Elision and contraction look at the next word, so they run over the finished French sentence: elision from
// right to left (each word sees its neighbour's final form), then contraction, which only meets the articles
// that elision left whole (de l'arbre stays, de le parc becomes du parc).
FrenchSentence elide_and_contract(std::vector<std::string> words) {
  std::vector<size_t> elided;   // indices before contraction
  for (size_t i = words.size(); i-- > 1;) {
    std::string changed = elide(words[i - 1], words[i]);
    if (changed != words[i - 1]) elided.insert(elided.begin(), i - 1);
    words[i - 1] = changed;
  }
  FrenchSentence result = contract(words);
  for (size_t i : elided) result.elided.push_back(result.position[i]);
  return result;
}

// English has its own small sound rule: "a" becomes "an" before a vowel (an apple, an old man).
std::vector<std::string> a_or_an(std::vector<std::string> words) {
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "a" && std::string("aeiou").find(words[i + 1][0]) != std::string::npos) words[i] = "an";
  }
  return words;
}

// Gender and number agreement of an adjective with its noun.
std::string agree_adjective(const Adjective& adjective, Gender gender, Number number) {
  if (number == plural) return gender == masculine ? adjective.masculine_plural : adjective.feminine_plural;
  return gender == masculine ? adjective.masculine : adjective.feminine;
}

// Where the adjective goes: most follow the noun (un chat noir); a few precede it (un petit chat), and those
// take their special masculine form right before a vowel sound (un bel arbre, un vieil homme, un nouvel hôtel).
PlacedAdjective place_adjective(const Adjective& adjective, Gender gender, Number number, const std::string& noun) {
  std::string form = agree_adjective(adjective, gender, number);
  if (adjective.position == before_noun && gender == masculine && number == singular &&
      starts_with_vowel_sound(noun)) {
    form = adjective.masculine_before_vowel;
  }
  return {form, adjective.position};
}

// The determiner's form for the noun's gender and number. The plural indefinite "des" becomes "de" when an
// adjective comes between it and the noun: des chats, but de petits chats.
std::string agree_determiner(const Determiner& determiner, Gender gender, Number number,
                             bool adjective_before_noun) {
  if (number == plural) {
    if (determiner.kind == partitive_plural && adjective_before_noun) return "de";
    return determiner.plural;
  }
  return gender == masculine ? determiner.masculine : determiner.feminine;
}

// Subject–verb agreement in French: the conjugated form for the subject's person, 0 = je … 5 = ils. (English
// only adds -s for he / she; verb_phrase() below picks between the two English forms.)
std::string agree_verb(const Conjugation& conjugation, int verb_form) {
  return conjugation[static_cast<size_t>(verb_form)];
}

// Negation: ne … pas around the conjugated verb (ne becomes n' before a vowel, later, in elide()).
std::vector<std::string> negate(const std::string& verb) { return {"ne", verb, "pas"}; }

}  // namespace toy_en_fr
}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
