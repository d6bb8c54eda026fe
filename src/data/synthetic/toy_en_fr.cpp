// toy_en_fr.cpp — the toy English→French grammar's sentences, built from its rules (one small function per
// phenomenon, toy_en_fr_rules.cpp) and its words (as tables, toy_en_fr_lexicon.cpp), phrase by phrase
// (toy_en_fr_phrase.h: both languages at once, with the gold alignment).
//
// A sentence is built once, as a list of choices (subject, verb, negation, object, adjectives, relative clause,
// prepositional phrase); each choice appends words to the English side and the French side at the same time.
// French word forms are chosen by the agreement rules while the phrase is built; two rules that look at the
// *next* French word — elision and contraction — run last, over the finished sentence:
//
//   choices   subject = "the" + "old" + "man" (masculine singular), verb = "listen to", negated,
//             object = "the" + "bird" (masculine singular)
//   built     the old man does not listen to the bird .
//             le vieil homme ne écoute pas le oiseau .       vieil: old before a masculine vowel sound
//   elide     le vieil homme n' écoute pas l' oiseau .
//
// Since each choice writes both sides, it also knows which English word made each French word: the gold
// alignment (data/alignment.h), linked right where the words are added, and the phenomena, tagged there too.
// For the sentence above (English words 0 … 9, French words 0 … 8):
//   0-0 1-1 2-2 4?3 4-5 5-4 6?4 7-6 8-7 9-8      the↔le old↔vieil man↔homme not↔n' (possible) not↔pas
//                                                listen↔écoute to↔écoute (possible) the↔l' bird↔oiseau .↔.
//   adjective_before_noun@1 agreement@0,1,4,6 do_support@4 elision@3,6 negation@3,5
// "does" (3) has no link: French has no word for it. How sure and possible links are chosen, and every tag with
// an example: data/toy-en-fr/README.md.
//
// The grammar (data/toy-en-fr/README.md has examples of each):
//   agreement    determiners, adjectives and predicate adjectives agree with their noun in gender and number;
//                verbs agree with their subject in person and number (six present-tense forms)
//   placement    most adjectives follow the noun (le chat noir); small, big, fat, beautiful, young, old, new
//                and good precede it (le petit chat), with bel / vieil / nouvel before a masculine vowel sound
//   negation     ne … pas around the verb (he does not sleep → il ne dort pas)
//   elision      le/la → l', je → j', ne → n', de → d' before a vowel sound; ce → cet, ma/sa → mon/son
//   contraction  à le → au, à les → aux, de le → du, de les → des
//   des → de     before an adjective that precedes a plural noun (de petits chats)
//   relative     a noun may carry a clause with qui (le chien qui dort), its verb agreeing with that noun
//
// One English sentence, one French sentence: the English words are chosen so that none has two translations
// here. "you" is always tu and "you all" always vous; "they" is always ils; "a" and "one" are both un/une;
// "his" and "her" are both son/sa/ses (the possessive agrees with the thing owned, not the owner). Where French
// would need a construction outside the grammar, the grammar avoids the sentence instead: a negated verb never
// takes an indefinite object (that would need "pas de"), "near" never takes "some" (that would need "près de"
// + bare plural), I / you / we never take a predicate adjective (their gender is unknown), and uncountable
// nouns (milk, bread) never take "a", "some" or a number (that would need du / de l'). A few more choices keep
// sentences sensible: no possessive before man, woman, king or queen ("her man"), no adjective inside a noun
// phrase that carries a relative clause ("the black plates that are not green"), and a relative clause never
// repeats the main verb ("the cows that sing sing").
#include "data/synthetic/toy_en_fr.h"

#include <string>
#include <utility>
#include <vector>

#include "data/synthetic/toy_en_fr_lexicon.h"
#include "data/synthetic/toy_en_fr_phrase.h"
#include "data/synthetic/toy_en_fr_rules.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace toy_en_fr {
namespace {

// ─────────────────────────────────────────── Building sentences ───────────────────────────────────────────

// Where a noun phrase stands decides which determiners it may take (see the top of this file).
enum Role { plain, subject_role, negated_object, after_near, go_to };

class Grammar {
 public:
  explicit Grammar(Generator& generator) : generator_(generator) {}

  // One sentence pair, 3 to 25 tokens on each side, with its gold alignment and phenomena.
  AlignedPair sentence() {
    while (true) {
      Phrase words = clause();
      words.translate(".", {"."});
      std::vector<std::string> english = a_or_an(words.english);  // a → an changes no word's place
      FrenchSentence french = elide_and_contract(words.french);
      auto fits = [](size_t length) {
        return static_cast<int64_t>(length) >= toy_en_fr_min_length &&
               static_cast<int64_t>(length) <= toy_en_fr_max_length;
      };
      if (fits(english.size()) && fits(french.words.size())) return gold_pair(words, english, french);
    }
  }

 private:
  Generator& generator_;

  bool chance(double probability) { return generator_.uniform() < probability; }

  template <typename T>
  const T& pick(const std::vector<const T*>& options) {
    return *options[static_cast<size_t>(generator_.integer(0, static_cast<int64_t>(options.size())))];
  }

  // The main clause: four shapes, each with an optional negation.
  Phrase clause() {
    double shape = generator_.uniform();
    if (shape < 0.30) return action_clause(/*transitive=*/false);
    if (shape < 0.70) return action_clause(/*transitive=*/true);
    if (shape < 0.85) return adjective_clause();
    return go_clause();
  }

  // "the cat sleeps under the table ." / "i read the book ." — subject, verb, maybe an object, maybe a place.
  Phrase action_clause(bool transitive) {
    std::vector<const Verb*> options;
    for (const Verb& verb : verbs()) {
      if ((verb.objects != 0) == transitive) options.push_back(&verb);
    }
    const Verb& verb = pick(options);
    bool negated = chance(0.25);
    // At most one relative clause per sentence: on the subject, or else maybe on the object.
    bool relative_on_subject = chance(0.15);
    Phrase words;
    int verb_form = 0;
    subject(verb.subjects, relative_on_subject ? &verb : nullptr, words, verb_form);
    words.append(verb_phrase(verb, verb_form, negated));
    if (transitive) {
      bool relative_on_object = !relative_on_subject && chance(0.2);
      NounPhrase object_phrase =
          noun_phrase(verb.objects, negated ? negated_object : plain, /*with_adjectives=*/!relative_on_object);
      if (relative_on_object) relative_clause(object_phrase, &verb);
      words.append(object_phrase.words);
    }
    // A place or a companion; more often without an object, where "vous dormez ." alone has few variants.
    if (chance(transitive ? 0.25 : 0.6)) words.append(prepositional_phrase());
    return words;
  }

  // "the cat is not black ." — be + an adjective that agrees with the subject.
  Phrase adjective_clause() {
    Phrase words;
    bool negated = chance(0.25);
    if (chance(0.15)) {
      std::vector<const Pronoun*> options;
      for (const Pronoun& pronoun : pronouns) {
        if (pronoun.takes_adjective) options.push_back(&pronoun);
      }
      const Pronoun& pronoun = pick(options);
      words.translate(pronoun.english, {pronoun.french});
      words.append(be_adjective(pronoun.verb_form, pronoun.gender, pronoun.number, person, negated));
      return words;
    }
    // No adjective inside the subject: "a green key is white" would contradict itself.
    NounPhrase subject = noun_phrase(any_kind, subject_role, /*with_adjectives=*/false);
    if (chance(0.15)) relative_clause(subject, nullptr);
    words.append(subject.words);
    words.append(
        be_adjective(subject.number == singular ? 2 : 5, subject.gender, subject.number, subject.kind, negated));
    return words;
  }

  // "we go to the market ." → "nous allons au marché ." — à + the article: au, à la, à l', aux.
  Phrase go_clause() {
    Phrase words;
    int verb_form = 0;
    subject(go.subjects, chance(0.1) ? &go : nullptr, words, verb_form);
    words.append(verb_phrase(go, verb_form, chance(0.25)));
    NounPhrase where = noun_phrase(place, go_to, true);
    words.translate("to", {"à"});  // to the → à le → au: contraction moves both links onto au
    words.append(where.words);
    return words;
  }

  // A subject for a verb whose doer must be of the given kinds: a pronoun (when persons may do it) or a noun
  // phrase. With main_verb set, the noun phrase gets a relative clause (whose verb is not main_verb: not
  // "the cows that sing sing"). Sets the verb form (0 = je … 5 = ils) the main verb agrees with.
  void subject(unsigned kinds, const Verb* main_verb, Phrase& words, int& verb_form) {
    bool with_relative_clause = main_verb != nullptr;
    if ((kinds & person) && !with_relative_clause && chance(0.5)) {
      std::vector<const Pronoun*> options;
      for (const Pronoun& pronoun : pronouns) options.push_back(&pronoun);
      const Pronoun& pronoun = pick(options);
      words.translate(pronoun.english, {pronoun.french});  // you all ↔ vous: "all" possible
      verb_form = pronoun.verb_form;
      return;
    }
    NounPhrase noun = noun_phrase(kinds, subject_role, /*with_adjectives=*/!with_relative_clause);
    if (with_relative_clause) relative_clause(noun, main_verb);
    words.append(noun.words);
    verb_form = noun.number == singular ? 2 : 5;
  }

  // The verb, agreeing with its subject, maybe negated: "does not sleep" / "ne dort pas". do / does has no
  // French word (the French verb carries the tense and the person itself), so it stays unaligned.
  Phrase verb_phrase(const Verb& verb, int verb_form, bool negated) {
    Phrase words;
    bool third_singular = verb_form == 2;
    const std::string conjugated = agree_verb(verb.french, verb_form);
    if (negated) {
      words.add_english(third_singular ? "does" : "do");
      const int32_t no = words.add_english("not");
      const std::vector<std::string> ne_verb_pas = negate(conjugated);
      const int32_t ne = words.add_french(ne_verb_pas[0]);
      const int32_t french_verb = words.translate(verb.english, {ne_verb_pas[1]});
      negation_links(words, no, ne, words.add_french(ne_verb_pas[2]));
      words.tag("do_support", french_verb);
      words.tag("agreement", french_verb);
    } else {
      words.tag("agreement", words.translate(third_singular ? verb.english_third : verb.english, {conjugated}));
    }
    return words;
  }

  // ne … pas for not: pas is sure — it carries the negation (spoken French drops ne: "il dort pas") — and ne is
  // possible: the first half of a pair that English says in one word. Both are tagged negation.
  static void negation_links(Phrase& words, int32_t no, int32_t ne, int32_t pas) {
    words.link(no, pas, sure);
    words.link(no, ne, possible);
    words.tag("negation", ne);
    words.tag("negation", pas);
  }

  // "is (not) black" / "est (n'est pas) noir": the adjective agrees with the subject of être.
  Phrase be_adjective(int verb_form, Gender gender, Number number, unsigned kind, bool negated) {
    std::vector<const Adjective*> options;
    for (const Adjective& adjective : adjectives) {
      if (adjective.describes & kind) options.push_back(&adjective);
    }
    const Adjective& adjective = pick(options);
    Phrase words;
    const std::string& be = etre[static_cast<size_t>(verb_form)];
    if (negated) {  // is not ↔ ne est pas: here English has no do, and the verb comes before not
      const std::vector<std::string> ne_verb_pas = negate(be);
      const int32_t ne = words.add_french(ne_verb_pas[0]);
      words.tag("agreement", words.translate(number == singular ? "is" : "are", {ne_verb_pas[1]}));
      const int32_t no = words.add_english("not");
      negation_links(words, no, ne, words.add_french(ne_verb_pas[2]));
    } else {
      words.tag("agreement", words.translate(number == singular ? "is" : "are", {be}));
    }
    words.tag("agreement", words.translate(adjective.english, {agree_adjective(adjective, gender, number)}));
    return words;
  }

  // "with the dog" / "near the park" → "près du parc".
  Phrase prepositional_phrase() {
    std::vector<const Preposition*> options;
    for (const Preposition& preposition : prepositions) options.push_back(&preposition);
    const Preposition& preposition = pick(options);
    Phrase words;
    words.translate(preposition.english, preposition.french);  // near ↔ près (sure), de (possible)
    bool near = std::string(preposition.english) == "near";
    NounPhrase noun = noun_phrase(preposition.takes, near ? after_near : plain, true);
    words.append(noun.words);
    return words;
  }

  // "who does not sleep" / "qui ne dort pas", after the noun phrase it describes; the verb agrees with that noun.
  // A person or animal may do something or be something; a thing may only be something. The noun phrase was
  // built without adjectives ("the black plates that are not green" would contradict itself), and the
  // clause's verb is never the sentence's main verb.
  void relative_clause(NounPhrase& noun, const Verb* main_verb) {
    bool negated = chance(0.2);
    int verb_form = noun.number == singular ? 2 : 5;
    Phrase words;
    words.translate((noun.kind & person) ? "who" : "that", {"qui"});
    std::vector<const Verb*> options;
    for (const Verb& verb : verbs()) {
      if ((verb.subjects & noun.kind) && &verb != main_verb) options.push_back(&verb);
    }
    if (options.empty() || chance(0.35)) {
      words.append(be_adjective(verb_form, noun.gender, noun.number, noun.kind, negated));
    } else {
      const Verb& verb = pick(options);
      words.append(verb_phrase(verb, verb_form, negated));
      if (verb.objects) words.append(noun_phrase(verb.objects, negated ? negated_object : plain, true).words);
    }
    for (int32_t word = 0; word < static_cast<int32_t>(words.french.size()); ++word) {
      words.tag("relative_clause", word);  // qui and every word of its clause
    }
    noun.words.append(words);
  }

  // A determiner allowed for this noun in this role, chosen by the weights above.
  const Determiner& choose_determiner(const Noun& noun, Role role) {
    bool countable = !(noun.kind & uncountable);
    auto allowed = [&](DeterminerKind kind) {
      if (!countable) return kind == definite || kind == demonstrative || kind == possessive;
      if ((noun.kind & adult) && kind == possessive) return false;  // "her man", "my king": not in this grammar
      switch (role) {
        case subject_role:
          return kind != partitive_plural;  // "des chats dorment" is stilted French
        case negated_object:
          return kind != indefinite && kind != one && kind != partitive_plural;
        case after_near:
          return kind != partitive_plural;
        case go_to:
          return kind == definite || kind == demonstrative || kind == possessive;
        case plain:
          return true;
      }
      return true;
    };
    double total = 0;
    for (const auto& [kind, weight] : determiner_weights) total += allowed(kind) ? weight : 0;
    double draw = generator_.uniform(0, total);
    DeterminerKind chosen = definite;
    for (const auto& [kind, weight] : determiner_weights) {
      if (!allowed(kind)) continue;
      chosen = kind;
      if (draw < weight) break;
      draw -= weight;
    }
    std::vector<const Determiner*> options;
    for (const Determiner& determiner : determiners) {
      if (determiner.kind == chosen) options.push_back(&determiner);
    }
    return pick(options);
  }

  // Determiner, adjectives and noun, agreeing in gender and number: "the small black cats" → "les petits chats
  // noirs". Up to two adjectives: any one, or one that precedes the noun followed by a colour.
  NounPhrase noun_phrase(unsigned kinds, Role role, bool with_adjectives) {
    std::vector<const Noun*> nouns_of_kind;
    for (const Noun& noun : nouns) {
      if ((noun.kind & kinds) && (role != go_to || (noun.kind & destination))) nouns_of_kind.push_back(&noun);
    }
    const Noun& noun = pick(nouns_of_kind);
    const Determiner& determiner = choose_determiner(noun, role);

    bool has_singular = determiner.english[0] != '\0';
    bool has_plural = determiner.english_plural[0] != '\0' && !(noun.kind & uncountable);
    // Going to a place: "to the parks" (aux parcs) is fine, "to my schools" is not something anyone says.
    if (role == go_to && determiner.kind != definite) has_plural = false;
    Number number = !has_plural ? singular : !has_singular ? plural : chance(0.4) ? plural : singular;

    std::vector<const Adjective*> fitting, fitting_before, fitting_colours;
    for (const Adjective& adjective : adjectives) {
      if (!(adjective.describes & noun.kind)) continue;
      fitting.push_back(&adjective);
      if (adjective.position == before_noun) fitting_before.push_back(&adjective);
      if (adjective.colour) fitting_colours.push_back(&adjective);
    }
    std::vector<const Adjective*> chosen;
    double how_many = with_adjectives ? generator_.uniform() : 1.0;
    if (how_many < 0.22 && !fitting.empty()) {
      chosen.push_back(&pick(fitting));
    } else if (how_many < 0.30 && !fitting_before.empty() && !fitting_colours.empty()) {
      chosen.push_back(&pick(fitting_before));
      chosen.push_back(&pick(fitting_colours));
    }

    NounPhrase phrase;
    phrase.gender = noun.gender;
    phrase.number = number;
    phrase.kind = noun.kind;
    phrase.words = noun_phrase_words(determiner, chosen, noun, number);
    return phrase;
  }

  // The words of a noun phrase, each linked to its English word wherever it stands:
  //   the small black cats  →  les petits chats noirs      0-0 1-1 2-3 3-2
  // Tags: adjective_before_noun on petits; adjective_after_noun on noirs and on chats, the two words whose order
  // differs from English; agreement on the determiner (not on a number: deux has one form) and the adjectives;
  // des_to_de where an adjective before the noun turns des into de.
  static Phrase noun_phrase_words(const Determiner& determiner, const std::vector<const Adjective*>& chosen,
                                  const Noun& noun, Number number) {
    const std::string french_noun = number == singular ? noun.french : noun.french_plural;
    std::vector<PlacedAdjective> placed;
    bool any_before = false;
    for (const Adjective* adjective : chosen) {
      placed.push_back(place_adjective(*adjective, noun.gender, number, french_noun));
      any_before = any_before || placed.back().position == before_noun;
    }
    Phrase words;
    const int32_t english_determiner =
        words.add_english(number == singular ? determiner.english : determiner.english_plural);
    std::vector<int32_t> english_adjectives;
    for (const Adjective* adjective : chosen) english_adjectives.push_back(words.add_english(adjective->english));
    const int32_t english_noun = words.add_english(number == singular ? noun.english : noun.english_plural);

    const int32_t french_determiner = words.add_french(agree_determiner(determiner, noun.gender, number, any_before));
    words.link(english_determiner, french_determiner);
    if (determiner.kind != number_word) words.tag("agreement", french_determiner);
    if (determiner.kind == partitive_plural && any_before) words.tag("des_to_de", french_determiner);
    auto add_adjectives = [&](Position position, const char* tag) {
      for (size_t k = 0; k < placed.size(); ++k) {
        if (placed[k].position != position) continue;
        const int32_t french_adjective = words.add_french(placed[k].form);
        words.link(english_adjectives[k], french_adjective);
        words.tag(tag, french_adjective);
        words.tag("agreement", french_adjective);
      }
    };
    add_adjectives(before_noun, "adjective_before_noun");
    const int32_t french_noun_word = words.add_french(french_noun);
    words.link(english_noun, french_noun_word);
    add_adjectives(after_noun, "adjective_after_noun");
    if (words.tags.count("adjective_after_noun")) words.tag("adjective_after_noun", french_noun_word);
    return words;
  }
};

}  // namespace
}  // namespace toy_en_fr

AlignedPair draw_aligned_toy_en_fr_pair(Generator& generator) {
  static const bool checked = (toy_en_fr::check_lexicon(), true);
  (void)checked;
  return toy_en_fr::Grammar(generator).sentence();
}

std::pair<std::string, std::string> draw_toy_en_fr_pair(Generator& generator) {
  AlignedPair pair = draw_aligned_toy_en_fr_pair(generator);
  return {std::move(pair.source), std::move(pair.target)};
}

const std::vector<std::string>& toy_en_fr_phenomena() {
  static const std::vector<std::string> names = {"adjective_after_noun",
                                                 "adjective_before_noun",
                                                 "agreement",
                                                 "contraction",
                                                 "des_to_de",
                                                 "do_support",
                                                 "elision",
                                                 "negation",
                                                 "relative_clause"};
  return names;
}

Corpus make_toy_en_fr_corpus(uint64_t seed, int64_t train_size) {
  Corpus corpus;
  corpus.task = "toy-en-fr";
  corpus.source_suffix = "en";
  corpus.target_suffix = "fr";
  corpus.aligned = true;
  Generator generator(seed);
  draw_aligned_splits(corpus, generator, draw_aligned_toy_en_fr_pair, train_size, toy_en_fr_valid_size,
                      toy_en_fr_test_size);
  return corpus;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
