// tokenizer_kinds.h — what the tokenizer files share with one another (tokenizer.h is the public interface).
//
// tokenizer.cpp dispatches on TokenizerConfig.kind to a train / load pair per kind:
//   word_tokenizer.cpp           words and punctuation marks
//   char_tokenizer.cpp           Unicode characters
//   sentencepiece_tokenizer.cpp  bpe and unigram subwords, trained by the sentencepiece library
// The word and char tokenizers are the same machine with a different way of cutting text: both keep a plain
// list of pieces (id i is piece i) built by counting the training text. VocabularyTokenizer is that machine;
// a kind only says how text splits into pieces (split) and how pieces join back into text (join).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/tokenizers/tokenizer.h"
#include "util/files.h"  // write_file_atomically

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// How the special ids pad 0, bos 1, eos 2, unk 3 print, in every kind (sentencepiece's own defaults).
inline const std::array<std::string, 4> special_pieces = {"<pad>", "<s>", "</s>", "<unk>"};

// ---- A tokenizer whose vocabulary is a list of pieces: word and char ----
//
// The vocabulary is built by counting pieces in the training text:
//   1. ids 0…3 are the special pieces;
//   2. pieces seen fewer than min_count times are dropped (they will encode as unk);
//   3. the rest follow, most frequent first, ties in byte (alphabetical) order — so the same text always
//      gives the same ids;
//   4. with vocab_size > 0 the list is cut to vocab_size ids in all, specials included.
// Saved as path_prefix + ".vocab": one piece per line, line i holding id i, so it can be read in any editor.
class VocabularyTokenizer : public Tokenizer {
 public:
  std::vector<int32_t> encode(const std::string& text) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  std::vector<std::string> pieces(const std::vector<int32_t>& ids) const override;
  std::vector<std::string> surfaces(const std::string& text) const override { return split(text); }  // 1:1 with encode
  int64_t vocab_size() const override { return static_cast<int64_t>(pieces_.size()); }
  void save(const std::string& path_prefix) const override;

  // Counts the pieces of `text` (see above); `kind` names the tokenizer in log lines and errors.
  void build(const std::vector<std::string>& text, int64_t min_count, int64_t vocab_size, const std::string& kind);
  // Reads what save() wrote; throws attnlab::Error naming the file if it is missing or not a `kind` vocabulary.
  void read(const std::string& path_prefix, const std::string& kind);

 protected:
  virtual std::vector<std::string> split(const std::string& text) const = 0;
  virtual std::string join(const std::vector<std::string>& pieces) const = 0;
  // Whether `piece` is one split() can produce (used to tell a word vocabulary from a char one on load).
  virtual bool is_valid_piece(const std::string& piece) const = 0;

 private:
  void set_pieces(std::vector<std::string> pieces);
  const std::string& piece_of(int32_t id) const;  // throws attnlab::Error for an id outside the vocabulary

  std::vector<std::string> pieces_;                 // id → piece
  std::unordered_map<std::string, int32_t> ids_;    // piece → id
};

// ---- One train / load pair per kind ----

std::unique_ptr<Tokenizer> train_word_tokenizer(const TokenizerConfig& config, const std::vector<std::string>& text);
std::unique_ptr<Tokenizer> load_word_tokenizer(const std::string& path_prefix);

std::unique_ptr<Tokenizer> train_char_tokenizer(const TokenizerConfig& config, const std::vector<std::string>& text);
std::unique_ptr<Tokenizer> load_char_tokenizer(const std::string& path_prefix);

// config.kind is "bpe" or "unigram"; sentencepiece writes work_prefix + ".model" / ".vocab" while training.
std::unique_ptr<Tokenizer> train_sentencepiece_tokenizer(const TokenizerConfig& config,
                                                         const std::vector<std::string>& text,
                                                         const std::string& work_prefix);
std::unique_ptr<Tokenizer> load_sentencepiece_tokenizer(const std::string& path_prefix);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
