// tokenizer.h — turning text into ids and back.
//
// Every tokenizer attnlab makes reserves the same special ids (src/model/config.h): pad 0, bos 1, eos 2, unk 3;
// real tokens start at 4. Kinds:
//   word     splits on white space (any Unicode space) after separating punctuation; for the toy tasks
//   char     one token per Unicode character (spaces included)
//   bpe, unigram  sentencepiece subwords, trained on the training text when a run starts
// A tokenizer is trained once per run, saved into the run folder, and loaded from there on resume and translate.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "data/config.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  virtual std::vector<int32_t> encode(const std::string& text) const = 0;   // no bos/eos added
  virtual std::string decode(const std::vector<int32_t>& ids) const = 0;    // stops at eos, skips pad/bos
  virtual std::vector<std::string> pieces(const std::vector<int32_t>& ids) const = 0;  // one label per id (pictures)
  // The text behind each id encode(text) gives, as typed: where pieces() says "<unk>", this says which word it was
  // (the explorer shows unknown words as typed). By default the pieces themselves.
  virtual std::vector<std::string> surfaces(const std::string& text) const { return pieces(encode(text)); }
  virtual int64_t vocab_size() const = 0;                                   // including the 4 special ids
  virtual void save(const std::string& path_prefix) const = 0;              // writes path_prefix + its extension(s)
};

// Trains a tokenizer of config.kind on the given sentences (for a shared vocabulary pass both sides).
std::unique_ptr<Tokenizer> train_tokenizer(const TokenizerConfig& config, const std::vector<std::string>& text,
                                           const std::string& work_prefix);
// Loads what save() wrote; throws attnlab::Error naming the file if it is missing or not a tokenizer.
std::unique_ptr<Tokenizer> load_tokenizer(const TokenizerConfig& config, const std::string& path_prefix);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
