// toy_en_fr_recognizer.h — is a line of English a sentence the toy grammar (toy_en_fr.h) can produce?
//
// What a language model trained on the toy English (configs/toy-en-lm.yaml) writes can be checked against the
// grammar it learned from: a recursive-descent recognizer over the same lexicon the generator draws from
// (toy_en_fr_lexicon.cpp), with the generator's syntax and its agreement:
//   sentence    = clause "."
//   clause      = subject(n) verb(n) [object] [preposition noun-phrase]      a verb with an object takes one
//               | subject(n) be(n) ["not"] adjective                          he / she / they, or a noun phrase
//               | subject(n) go(n) "to" noun-phrase
//   subject(n)  = pronoun | noun-phrase(n) [relative(n)]
//   verb(n)     = the verb's form for n (sleeps / sleep) | does / do "not" base form
//   relative(n) = who / that (be(n) ["not"] adjective | verb(n) [object])
//   noun-phrase(n) = determiner(n) [adjective [adjective]] noun(n)           a / an, one: singular; two …, some: plural
// Number agreement (determiner–noun, subject–verb, subject–be) and each verb's need of an object are checked;
// what the generator keeps to for meaning (which nouns a verb or adjective takes, who / that for people or
// things, one relative clause at most) is not: "the table sleeps ." parses, "the cats sleeps ." does not.
#pragma once

#include <string>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// `sentence`: words separated by single spaces, lower-case, ending in " ." — as the corpus writes them.
bool is_toy_english_sentence(const std::string& sentence);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
