// toy_en_fr_lexicon.h — the words of the toy English→French grammar: what the rules (toy_en_fr.cpp) need to
// know about each noun, adjective, verb, pronoun, determiner and preposition, and the tables of them
// (toy_en_fr_lexicon.cpp). Only the grammar's own files (toy_en_fr*.cpp) include this header.
#pragma once

#include <array>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tensor/real.h"  // ATTNLAB_PRECISION, the namespace of this build's precision

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace toy_en_fr {

enum Gender { masculine, feminine };
enum Number { singular, plural };

// What a noun names. Verbs, adjectives and prepositions list the kinds they accept, so sentences make sense.
// People come in three kinds because a few adjective + noun pairs are French idioms with another meaning:
// "belle-mère" is a mother-in-law, "vieille fille" a spinster, "petit frère" a younger brother (and "petit
// pain" a bread roll). Keeping beautiful and old away from relatives and children, and small away from
// relatives, food and drink, keeps every phrase literal.
enum Kind : unsigned {
  adult = 1u << 0,        // man, woman, king, queen
  relative = 1u << 1,     // father, mother, brother, sister, uncle, aunt
  child = 1u << 2,        // boy, girl, baby
  animal = 1u << 3,
  object = 1u << 4,       // things one can carry
  text = 1u << 5,         // things one can read
  food = 1u << 6,
  drink = 1u << 7,
  place = 1u << 8,
  furniture = 1u << 9,    // things one can put something on or under
  vehicle = 1u << 10,
  outdoor = 1u << 11,     // trees and bridges
  // Two traits, written in the same column:
  uncountable = 1u << 16, // singular only; never "a", "some" or a number (milk, bread)
  destination = 1u << 17, // a place one "goes to" (à la gare); the forest and the kitchen are not
};
constexpr unsigned person = adult | relative | child;
constexpr unsigned animate = person | animal;
constexpr unsigned any_kind = person | animal | object | text | food | drink | place | furniture | vehicle | outdoor;

struct Noun {
  const char* english;
  const char* english_plural;   // "" for uncountable nouns
  const char* french;
  const char* french_plural;
  Gender gender;
  unsigned kind;
};

extern const std::vector<Noun> nouns;

enum Position { before_noun, after_noun };

struct Adjective {
  const char* english;
  const char* masculine;
  const char* feminine;
  const char* masculine_plural;
  const char* feminine_plural;
  const char* masculine_before_vowel;   // bel, vieil, nouvel: masculine singular right before a vowel sound
  Position position;
  bool colour;                          // a colour may follow a before-noun adjective: le petit chat noir
  unsigned describes;                   // the kinds of noun it may describe
};

extern const std::vector<Adjective> adjectives;

// Verbs. French has six present-tense forms, one per person: je, tu, il/elle, nous, vous, ils/elles.
using Conjugation = std::array<std::string, 6>;

struct Verb {
  std::string english;          // the base form, which also follows "do not": "eat", "look for"
  std::string english_third;    // he/she form: "eats", "looks for"
  Conjugation french;
  unsigned subjects;            // who may do it
  unsigned objects;             // kinds of object it takes; 0 for a verb without object
};

// Every verb with an object or none: the regular -er verbs (conjugated by rule), then the irregular ones.
const std::vector<Verb>& verbs();

// Two verbs have sentences of their own: "go to" + a destination, and "be" + an adjective.
extern const Verb go;
extern const Conjugation etre;

// Subject pronouns, with the verb form each takes (0 = je … 5 = ils). Their gender and number matter only for
// predicate adjectives, which only he, she and they take.
struct Pronoun {
  const char* english;
  const char* french;
  int verb_form;
  bool takes_adjective;   // he / she / they: gender known
  Gender gender;
  Number number;
};

extern const std::vector<Pronoun> pronouns;

// Determiners. A plural-only determiner has "" for its singular forms, and the other way round.
enum DeterminerKind { definite, indefinite, one, partitive_plural, number_word, demonstrative, possessive };

struct Determiner {
  const char* english;
  const char* english_plural;
  const char* masculine;
  const char* feminine;
  const char* plural;
  DeterminerKind kind;
};

extern const std::vector<Determiner> determiners;

// How often each kind of determiner is chosen (before the rules of toy_en_fr.cpp rule some out).
extern const std::map<DeterminerKind, double> determiner_weights;

struct Preposition {
  const char* english;
  std::vector<std::string> french;   // "près de" is two words
  unsigned takes;                    // kinds of noun it takes
};

extern const std::vector<Preposition> prepositions;

// French words that start with a silent h (l'homme) and with an aspirated h (le huit); toy_en_fr_lexicon.cpp.
extern const std::set<std::string> silent_h_words;
extern const std::set<std::string> aspirated_h_words;

// Checks the promises the rules rely on (see toy_en_fr_lexicon.cpp); throws attnlab::Error naming the word.
void check_lexicon();

}  // namespace toy_en_fr
}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
