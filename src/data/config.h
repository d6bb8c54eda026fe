// config.h — the data chapter's settings: the `data:` and `tokenizer:` sections of a config file
// (configs/README.md documents each key; src/run/config_keys.cpp lists them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/real.h"
#include "util/choice.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct DataConfig {
  // Either two line-aligned files per split (…_src / …_tgt), or one TSV per split (…_tsv: "source<TAB>target").
  std::string train_src, train_tgt, train_tsv;
  std::string valid_src, valid_tgt, valid_tsv;
  std::string test_src, test_tgt, test_tsv;
  // model.task: language_model reads one text per split instead: a document a line (gpt/language_model.h).
  std::string train_text, valid_text, test_text;
  int64_t max_len = 100;          // pairs with more tokens than this on either side are skipped (and counted)
  bool lowercase = false;
};

// How text is cut into tokens (tokenizer.kind; tokenizer_kinds.h has one file each).
enum class TokenizerKind {
  word,       // words and punctuation marks
  character,  // Unicode characters ("char" in a config)
  bpe,        // sentencepiece's byte-pair-encoding subwords
  unigram,    // sentencepiece's unigram-language-model subwords
};
const std::vector<std::string>& choice_names(TokenizerKind);  // "word", "char", "bpe", "unigram" (util/choice.h)

struct TokenizerConfig {
  TokenizerKind kind = TokenizerKind::word;
  int64_t vocab_size = 8000;      // bpe / unigram: sentencepiece's vocabulary size (word / char: a cap, 0 = all)
  bool shared = true;             // one vocabulary for source and target
  int64_t min_count = 1;          // word / char: drop tokens seen fewer times (they become unk)
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
