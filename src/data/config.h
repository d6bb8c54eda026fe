// config.h — the data chapter's settings: the `data:` and `tokenizer:` sections of a config file
// (configs/README.md documents each key; src/run/config_io.cpp reads and checks them).
#pragma once

#include <cstdint>
#include <string>

#include "tensor/real.h"

namespace attnlab::inline ATTNLAB_PRECISION {

struct DataConfig {
  // Either two line-aligned files per split (…_src / …_tgt), or one TSV per split (…_tsv: "source<TAB>target").
  std::string train_src, train_tgt, train_tsv;
  std::string valid_src, valid_tgt, valid_tsv;
  std::string test_src, test_tgt, test_tsv;
  int64_t max_len = 100;          // pairs with more tokens than this on either side are skipped (and counted)
  bool lowercase = false;
};

struct TokenizerConfig {
  std::string kind = "word";      // word | char | bpe | unigram
  int64_t vocab_size = 8000;      // bpe / unigram: sentencepiece's vocabulary size (word / char: a cap, 0 = all)
  bool shared = true;             // one vocabulary for source and target
  int64_t min_count = 1;          // word / char: drop tokens seen fewer times (they become unk)
};

}  // namespace attnlab::inline ATTNLAB_PRECISION
