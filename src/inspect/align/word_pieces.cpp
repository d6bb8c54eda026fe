// word_pieces.cpp — tokens laid over words, and token matrices pooled into word matrices (word_pieces.h).
#include "inspect/align/word_pieces.h"

#include <algorithm>

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A token's text without the spaces around it: ' ' and sentencepiece's word mark "▁" (U+2581) left out.
std::string without_spaces(const std::string& surface) {
  static const std::string word_mark = "\xE2\x96\x81";   // ▁
  std::string out;
  for (size_t at = 0; at < surface.size();) {
    if (surface[at] == ' ') {
      at += 1;
    } else if (surface.compare(at, word_mark.size(), word_mark) == 0) {
      at += word_mark.size();
    } else {
      out += surface[at++];
    }
  }
  return out;
}

std::vector<std::string> split_at_spaces(const std::string& text) {
  std::vector<std::string> words;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(' ', start), text.size());
    if (end > start) words.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

}  // namespace

WordPieces split_into_word_pieces(const RunConfig& config, const Tokenizer& tokenizer, const std::string& sentence,
                                  const std::string& where) {
  WordPieces out;
  const std::string text = clean_like_training(config, sentence);
  out.words = split_at_spaces(text);
  if (out.words.empty()) throw Error(where + " has no words");
  out.ids = tokenizer.encode(text);
  const std::vector<std::string> surfaces = tokenizer.surfaces(text);
  if (surfaces.size() != out.ids.size()) {
    throw Error(where + ": the tokenizer gives " + std::to_string(out.ids.size()) + " tokens but " +
                std::to_string(surfaces.size()) + " surfaces, so its tokens cannot be put back into words");
  }
  // The words' characters end to end, and for each byte the word it belongs to.
  std::string letters;
  std::vector<int32_t> word_at;
  for (size_t w = 0; w < out.words.size(); ++w) {
    letters += out.words[w];
    word_at.resize(letters.size(), static_cast<int32_t>(w));
  }
  size_t at = 0;                                                        // the next byte of `letters` to cover
  std::vector<int64_t> tokens_of_word(out.words.size(), 0);
  for (size_t k = 0; k < surfaces.size(); ++k) {
    const std::string piece = without_spaces(surfaces[k]);
    if (piece.empty()) {
      out.word_of.push_back(-1);                                        // a token of spaces: no word
      continue;
    }
    if (letters.compare(at, piece.size(), piece) != 0) {
      throw Error(where + ": token " + std::to_string(k) + " ('" + surfaces[k] + "') does not match the words at that " +
                  "point ('" + letters.substr(at, piece.size()) + "'); the tokenizer rewrites the text, so its " +
                  "tokens cannot be put back into the corpus's words");
    }
    out.word_of.push_back(word_at[at]);
    ++tokens_of_word[static_cast<size_t>(word_at[at])];
    at += piece.size();
  }
  if (at != letters.size()) {
    throw Error(where + ": the tokens' text ends after " + std::to_string(at) + " of the words' " +
                std::to_string(letters.size()) + " bytes; the tokens do not cover the sentence's words");
  }
  for (size_t w = 0; w < out.words.size(); ++w) {
    if (tokens_of_word[w] == 0) {
      throw Error(where + ": the word '" + out.words[w] + "' has no token of its own; the tokenizer's tokens do not " +
                  "cover the sentence's words");
    }
  }
  return out;
}

std::vector<double> pool_to_words(const std::vector<double>& tokens_matrix, int64_t rows, const WordPieces& target,
                                  const WordPieces& source) {
  const int64_t T = static_cast<int64_t>(target.ids.size()), S = static_cast<int64_t>(source.ids.size());
  if (rows < T || rows * S != static_cast<int64_t>(tokens_matrix.size())) {
    throw Error("pool_to_words: a matrix of " + std::to_string(tokens_matrix.size()) + " numbers in " +
                std::to_string(rows) + " rows does not cover " + std::to_string(T) + " target tokens × " +
                std::to_string(S) + " source tokens");
  }
  const int64_t J = static_cast<int64_t>(target.words.size()), I = static_cast<int64_t>(source.words.size());
  std::vector<double> words(static_cast<size_t>(J * I), 0.0);       // [J, I]
  std::vector<int64_t> pieces(static_cast<size_t>(J), 0);
  for (int64_t t = 0; t < T; ++t) {                                  // row t predicts target token t
    const int32_t j = target.word_of[t];
    if (j < 0) continue;
    ++pieces[j];
    for (int64_t s = 0; s < S; ++s) {
      const int32_t i = source.word_of[s];
      if (i >= 0) words[j * I + i] += tokens_matrix[t * S + s];     // Σ over word i's source pieces
    }
  }
  for (int64_t j = 0; j < J; ++j) {
    for (int64_t i = 0; i < I && pieces[j] > 1; ++i) words[j * I + i] /= double(pieces[j]);   // mean over j's pieces
  }
  return words;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
