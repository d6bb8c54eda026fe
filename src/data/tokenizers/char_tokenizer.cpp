// char_tokenizer.cpp — one token per Unicode character (code point), spaces included.
//
// The smallest vocabulary there is: a few dozen ids cover a European language, and no word is ever unknown,
// only a character the training text never showed. The price is long sequences (a 12-word sentence is ~60
// tokens), which is why it suits the toy tasks and the attention pictures rather than real translation.
//   "Grüße" → G | r | ü | ß | e        (5 tokens, although "ü" and "ß" are 2 bytes each in UTF-8)
// Decoding concatenates the characters, so decode(encode(x)) == x whenever every character of x is known.
// Text is taken as it is: spaces are not normalised here (the corpus reader has done it, see corpus.h).
// Line ends are never tokens, because the vocabulary file holds one character per line; they encode as unk.
//
// The vocabulary (which characters get ids) is built by VocabularyTokenizer (tokenizer_kinds.h).
#include "data/corpus.h"
#include "data/tokenizers/tokenizer_kinds.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

class CharTokenizer : public VocabularyTokenizer {
 protected:
  std::vector<std::string> split(const std::string& text) const override { return utf8_characters(text); }

  std::string join(const std::vector<std::string>& characters) const override {
    std::string text;
    for (const std::string& character : characters) text += character;
    return text;
  }

  bool is_valid_piece(const std::string& piece) const override { return utf8_characters(piece).size() == 1; }
};

}  // namespace

std::unique_ptr<Tokenizer> train_char_tokenizer(const TokenizerConfig& config, const std::vector<std::string>& text) {
  auto tokenizer = std::make_unique<CharTokenizer>();
  tokenizer->build(text, config.min_count, config.vocab_size, "char");
  return tokenizer;
}

std::unique_ptr<Tokenizer> load_char_tokenizer(const std::string& path_prefix) {
  auto tokenizer = std::make_unique<CharTokenizer>();
  tokenizer->read(path_prefix, "char");
  return tokenizer;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
