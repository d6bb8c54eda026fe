// toy_en_fr_recognizer.cpp — the toy English grammar read backwards (toy_en_fr_recognizer.h): each rule a function
// from where a phrase may start to every place it may end, over the generator's own lexicon.
#include "data/synthetic/toy_en_fr_recognizer.h"

#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "data/synthetic/toy_en_fr_lexicon.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

using namespace toy_en_fr;
using Words = std::vector<std::string>;
using Ends = std::set<size_t>;   // every position a phrase starting here may end at (one past its last word)

Words words_of(const std::string& text) {
  std::istringstream in(text);
  Words words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

// Where `phrase` (one or more words: "you all", "look for") ends if it starts at `at`; 0 when it is not there.
size_t match(const Words& w, size_t at, std::string_view phrase) {
  size_t i = at;
  while (!phrase.empty()) {
    const size_t space = phrase.find(' ');
    if (i >= w.size() || w[i] != phrase.substr(0, space)) return 0;
    ++i;
    phrase = space == std::string_view::npos ? std::string_view() : phrase.substr(space + 1);
  }
  return i;
}

// determiner(n) [adjective [adjective]] noun(n); "an" stands for "a" before a vowel.
Ends noun_phrase(const Words& w, size_t at, Number n) {
  Ends after_determiner, ends;
  for (const Determiner& d : determiners) {
    const std::string_view word = n == singular ? d.english : d.english_plural;
    if (word.empty()) continue;
    if (size_t e = match(w, at, word)) after_determiner.insert(e);
    if (word == "a") if (size_t e = match(w, at, "an")) after_determiner.insert(e);
  }
  Ends before_noun = after_determiner;
  for (int k = 0; k < 2; ++k) {                                      // up to two adjectives
    for (size_t start : Ends(before_noun)) {
      for (const Adjective& a : adjectives) if (size_t e = match(w, start, a.english)) before_noun.insert(e);
    }
  }
  for (size_t start : before_noun) {
    for (const Noun& noun : nouns) {
      const std::string_view word = n == singular ? noun.english : noun.english_plural;
      if (!word.empty()) if (size_t e = match(w, start, word)) ends.insert(e);
    }
  }
  return ends;
}

Ends noun_phrase_any(const Words& w, size_t at) {
  Ends ends = noun_phrase(w, at, singular);
  for (size_t e : noun_phrase(w, at, plural)) ends.insert(e);
  return ends;
}

// is / are ["not"] adjective
Ends be_adjective(const Words& w, size_t at, Number n) {
  Ends ends;
  size_t be = match(w, at, n == singular ? "is" : "are");
  if (!be) return ends;
  for (size_t start : {be, match(w, be, "not")}) {
    if (!start) continue;
    for (const Adjective& a : adjectives) if (size_t e = match(w, start, a.english)) ends.insert(e);
  }
  return ends;
}

// The verb for subject form `form` (2: he / she / it), plain or "do(es) not" + base form: where it ends.
size_t verb_phrase(const Words& w, size_t at, const Verb& verb, int form) {
  if (size_t e = match(w, at, form == 2 ? verb.english_third : verb.english)) return e;
  if (size_t no = match(w, at, form == 2 ? "does not" : "do not")) return match(w, no, verb.english);
  return 0;
}

Ends relative_clause(const Words& w, size_t at, Number n);

// A noun phrase of either number, maybe with its relative clause.
Ends object(const Words& w, size_t at) {
  Ends ends;
  for (Number n : {singular, plural}) {
    for (size_t e : noun_phrase(w, at, n)) {
      ends.insert(e);
      for (size_t r : relative_clause(w, e, n)) ends.insert(r);
    }
  }
  return ends;
}

// who / that, then be + adjective, or a verb (with its object when it takes one), agreeing with the noun.
Ends relative_clause(const Words& w, size_t at, Number n) {
  Ends ends;
  size_t start = match(w, at, "who");
  if (!start) start = match(w, at, "that");
  if (!start) return ends;
  ends = be_adjective(w, start, n);
  for (const Verb& verb : verbs()) {
    const size_t e = verb_phrase(w, start, verb, n == singular ? 2 : 5);
    if (!e) continue;
    if (verb.objects == 0) ends.insert(e);
    else for (size_t o : noun_phrase_any(w, e)) ends.insert(o);   // the generator's objects here have no clause
  }
  return ends;
}

struct Subject {
  size_t end;
  int form;          // the verb form it takes: 0 = i … 5 = they
  Number number;
  bool takes_be;     // may be followed by be + adjective (he, she, they, a noun phrase)
};

std::vector<Subject> subjects(const Words& w, size_t at) {
  std::vector<Subject> found;
  for (const Pronoun& p : pronouns) {
    if (size_t e = match(w, at, p.english)) found.push_back({e, p.verb_form, p.number, p.takes_adjective});
  }
  for (Number n : {singular, plural}) {
    for (size_t e : noun_phrase(w, at, n)) {
      found.push_back({e, n == singular ? 2 : 5, n, true});
      for (size_t r : relative_clause(w, e, n)) found.push_back({r, n == singular ? 2 : 5, n, true});
    }
  }
  return found;
}

// [preposition noun-phrase] after a clause's verb or object.
void add_with_place(const Words& w, size_t at, Ends& ends) {
  ends.insert(at);
  for (const Preposition& p : prepositions) {
    if (size_t e = match(w, at, p.english)) for (size_t o : noun_phrase_any(w, e)) ends.insert(o);
  }
}

Ends clause(const Words& w) {
  Ends ends;
  for (const Subject& s : subjects(w, 0)) {
    for (const Verb& verb : verbs()) {                                // subject verb [object] [place]
      const size_t e = verb_phrase(w, s.end, verb, s.form);
      if (!e) continue;
      if (verb.objects == 0) add_with_place(w, e, ends);
      else for (size_t o : object(w, e)) add_with_place(w, o, ends);
    }
    if (s.takes_be) for (size_t e : be_adjective(w, s.end, s.number)) ends.insert(e);   // subject is adjective
    if (size_t e = verb_phrase(w, s.end, go, s.form)) {               // subject goes to a place
      if (size_t to = match(w, e, "to")) for (size_t o : noun_phrase_any(w, to)) ends.insert(o);
    }
  }
  return ends;
}

}  // namespace

bool is_toy_english_sentence(const std::string& sentence) {
  const Words w = words_of(sentence);
  if (w.size() < 2 || w.back() != ".") return false;
  return clause(w).count(w.size() - 1) == 1;                          // the clause ends right before the "."
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
