// word_pieces.h — tokens and words: which word of a sentence each of the model's tokens is a piece of.
//
// A gold alignment (src/data/alignment.h) links WORDS — the space-separated tokens of the corpus — while the
// model reads TOKENS, which its tokenizer makes: with `word` the same as the words (the toy corpus is written
// already split), with `bpe`, `unigram` or `char` pieces of words. To score the model against the gold, every
// token is put back into its word:
//   token k of the sentence → word w(k), found by walking the text: each token's surface (the text behind it,
//   Tokenizer::surfaces) is laid over the words' characters, left to right, spaces left out; a token that is
//   only spaces (char's " ", sentencepiece's lone "▁") belongs to no word, w(k) = −1.
// A matrix over tokens, rows = decoder positions, columns = source tokens, becomes one over words
//   W[j, i] = mean over the target tokens t of word j of  Σ over the source tokens s of word i of  M[t, s]
// SUM over a word's source pieces (attention or attribution paid to any piece of word i is paid to word i, so a
// row that sums to 1 over tokens still does over words) and MEAN over a word's target pieces (each piece is one
// decoder row predicting part of word j; the mean keeps a row sum of 1). The decoder row of target token t is the
// one that PREDICTS it (it reads t − 1; src/inspect/maps/attention_maps.h); the last row, the one predicting </s>,
// belongs to no word and is dropped, and the source has no bos or eos (the encoder reads the sentence bare).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "run/run.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct WordPieces {
  std::vector<std::string> words;   // the sentence's words, as the corpus writes them (split at single spaces)
  std::vector<int32_t> ids;         // the tokenizer's ids of the sentence (cleaned like the training text)
  std::vector<int32_t> word_of;     // [ids.size()]: the word each token is a piece of, −1 for a token of spaces
};

// The words and tokens of `sentence` (a line of the corpus) under the run's `tokenizer`. Throws attnlab::Error,
// naming `where` ("line 7 of test.fr"), when the sentence has no word, when the tokens' text does not lay over
// the words (a tokenizer that rewrites text, say sentencepiece's NFKC normalisation of "…"), or when a word gets
// no token at all.
WordPieces split_into_word_pieces(const RunConfig& config, const Tokenizer& tokenizer, const std::string& sentence,
                                  const std::string& where);

// M [rows, source tokens] (row t: the decoder position predicting target token t; rows ≥ target tokens — the
// </s> row — are dropped) → W [target words, source words] by the rule above. Throws attnlab::Error when M has
// fewer rows than the target has tokens or not as many columns as the source has.
std::vector<double> pool_to_words(const std::vector<double>& tokens_matrix, int64_t rows, const WordPieces& target,
                                  const WordPieces& source);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
