// word_tokenizer.cpp — words and punctuation marks as tokens, the classic NMT vocabulary before subwords.
//
// Splitting, in order:
//   1. every Unicode space becomes an ASCII space (normalize_spaces), and the text is cut at spaces;
//   2. inside each chunk, each punctuation mark  . , ! ? ; : " ( ) [ ] « » „ “ ” ‘ ‚ … ¡ ¿  is a token of its
//      own — except a . or , between two digits, which stays in its number ("3.5", "1,000");
//   3. an apostrophe (' or ’) right after a letter ends the word and stays with it, whether a letter follows (the
//      French elision "l'homme" → "l'" "homme", "aujourd'hui" → "aujourd'" "hui") or a space does (the same
//      elision already split, as tokenised French corpora write it: "l' homme"; or a plural possessive, "dogs'").
//      The rule cuts English "don't" into "don'" "t": one simple rule for every language rather than a table of
//      contractions per language. An apostrophe after anything else ("'tis") is a token of its own.
//   "Bonjour, l'ami !" → Bonjour | , | l' | ami | !
//
// Decoding joins tokens with single spaces: "Bonjour , l' ami !". It re-attaches nothing — where spaces go around
// punctuation and apostrophes depends on the language (French writes "ami !", English "friend!") — and this
// spaced, tokenised form is the one tokenised corpora (such as data/toy-en-fr) and tokenised BLEU use. So
// decode(encode(x)) == x for text that is already in that form.
//
// The vocabulary (which words get ids) is built by VocabularyTokenizer (tokenizer_kinds.h); a word not in it
// encodes as unk.
#include <algorithm>
#include <array>

#include "data/corpus.h"
#include "data/tokenizers/tokenizer_kinds.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

const std::array<std::string, 21> punctuation_marks = {
    ".", ",", "!", "?", ";", ":", "\"", "(", ")", "[", "]", "«", "»", "„", "“", "”", "‘", "‚", "…", "¡", "¿"};

bool is_punctuation(const std::string& character) {
  return std::find(punctuation_marks.begin(), punctuation_marks.end(), character) != punctuation_marks.end();
}

bool is_apostrophe(const std::string& character) { return character == "'" || character == "’"; }

bool is_digit(const std::string& character) {
  return character.size() == 1 && character[0] >= '0' && character[0] <= '9';
}

// A letter, roughly: an ASCII letter, or any non-ASCII character that is not one of the marks above
// (é, ß, œ, …). Good enough to tell "l'homme" from a quote mark.
bool is_letter(const std::string& character) {
  if (character.size() == 1) {
    char c = character[0];
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }
  return !character.empty() && !is_punctuation(character) && !is_apostrophe(character);
}


class WordTokenizer : public VocabularyTokenizer {
 protected:
  std::vector<std::string> split(const std::string& text) const override {
    std::vector<std::string> tokens;
    std::string word;
    auto end_word = [&] {
      if (!word.empty()) tokens.push_back(word);
      word.clear();
    };
    const std::string normalized = normalize_spaces(text);
    size_t chunk_start = 0;
    while (chunk_start < normalized.size()) {
      size_t chunk_end = std::min(normalized.find(' ', chunk_start), normalized.size());
      const std::vector<std::string> characters =
          utf8_characters(std::string_view(normalized).substr(chunk_start, chunk_end - chunk_start));
      for (size_t i = 0; i < characters.size(); ++i) {
        const std::string& character = characters[i];
        const std::string before = i > 0 ? characters[i - 1] : "";
        const std::string after = i + 1 < characters.size() ? characters[i + 1] : "";
        if (is_apostrophe(character) && is_letter(before) && (is_letter(after) || after.empty())) {
          word += character;  // elision ("l'homme", "l' homme"): the apostrophe closes the word before it
          end_word();
        } else if (is_apostrophe(character)) {
          end_word();
          tokens.push_back(character);
        } else if (is_punctuation(character) && !((character == "." || character == ",") && is_digit(before) &&
                                                  is_digit(after))) {
          end_word();
          tokens.push_back(character);
        } else {
          word += character;
        }
      }
      end_word();
      chunk_start = chunk_end + 1;
    }
    return tokens;
  }

  std::string join(const std::vector<std::string>& tokens) const override {
    std::string text;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0) text += ' ';
      text += tokens[i];
    }
    return text;
  }

  bool is_valid_piece(const std::string& piece) const override {
    return !piece.empty() && piece.find_first_of(" \t") == std::string::npos;
  }
};

}  // namespace

std::unique_ptr<Tokenizer> train_word_tokenizer(const TokenizerConfig& config, const std::vector<std::string>& text) {
  auto tokenizer = std::make_unique<WordTokenizer>();
  tokenizer->build(text, config.min_count, config.vocab_size, "word");
  return tokenizer;
}

std::unique_ptr<Tokenizer> load_word_tokenizer(const std::string& path_prefix) {
  auto tokenizer = std::make_unique<WordTokenizer>();
  tokenizer->read(path_prefix, "word");
  return tokenizer;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
