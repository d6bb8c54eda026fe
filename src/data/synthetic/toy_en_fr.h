// toy_en_fr.h — `toy-en-fr`: a small English→French grammar, correct by construction, to train on in minutes.
//
// Real corpora are too large for a laptop CPU and too noisy to tell whether a model has learned anything.
// This grammar is written for attnlab: each English sentence and its French translation are built together
// from one choice of words, so the French is right by construction, and every English sentence has exactly one
// French translation under the grammar. It holds the phenomena attention has to learn — agreement of articles,
// adjectives and verbs, adjectives that move after the noun, ne … pas around the verb, elision (l', n', j', d'),
// contraction (du, des, au, aux), relative clauses with qui — over a few hundred words. The rules, each a small
// function named for its phenomenon, are in toy_en_fr.cpp; the lexicon, as tables, is in toy_en_fr_lexicon.cpp;
// data/toy-en-fr/README.md describes them with examples.
//
// Text format: lowercase ("i" included), words and the final "." separated by single spaces. An elided French
// word is a token of its own that keeps its apostrophe — "l' arbre", "je n' aime pas", "j' ai" — as the Moses
// tokenizer writes French, so every French word is one space-separated token. No end-of-sequence token: the
// model adds eos (src/data/batch.h). Both sides are 3 to 25 tokens long, the final "." included.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "data/synthetic/synthetic.h"
#include "tensor/random.h"
#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

constexpr int64_t toy_en_fr_train_size = 20000;
constexpr int64_t toy_en_fr_valid_size = 1000;
constexpr int64_t toy_en_fr_test_size = 1000;
constexpr int64_t toy_en_fr_min_length = 3;    // tokens, the final "." included, on either side
constexpr int64_t toy_en_fr_max_length = 25;

// One random sentence pair (English, French) drawn from the grammar.
std::pair<std::string, std::string> draw_toy_en_fr_pair(Generator& generator);

// The same pair — the same draws, the same words — with its gold alignment from the English words (source) to
// the French ones (target), and its phenomena on the French words (data/alignment.h; data/toy-en-fr/README.md
// says how each rule links its words). Every French word has a link; of the English words only "do" / "does"
// has none.
AlignedPair draw_aligned_toy_en_fr_pair(Generator& generator);

// The names of the phenomena the grammar tags, in alphabetical order: adjective_after_noun,
// adjective_before_noun, agreement, contraction, des_to_de, do_support, elision, negation, relative_clause.
const std::vector<std::string>& toy_en_fr_phenomena();

// The corpus: files train.en / train.fr, valid.en / valid.fr, test.en / test.fr (see synthetic.h for splits),
// with train.align / train.tags, … beside them.
Corpus make_toy_en_fr_corpus(uint64_t seed, int64_t train_size);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
