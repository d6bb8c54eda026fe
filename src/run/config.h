// config.h — a run's whole configuration: the sections of a YAML config file. Each chapter owns its section
// (data/config.h, model/config.h, train/config.h, decode/config.h); this file composes them.
//
//   data:       where the parallel text is and how to filter it
//   tokenizer:  how text becomes ids (word, char, or sentencepiece bpe / unigram)
//   model:      the Transformer's shape (src/model/config.h), including model.attention.{encoder,decoder,cross}
//   train:      optimisation, schedule, validation and checkpoints (src/train/config.h)
//   decode:     how translations are produced
// Every key, its default and its meaning are documented in configs/README.md. load_config() (config_io.h)
// refuses unknown keys (suggesting the closest), wrong types and out-of-range values, naming the key's full path.
#pragma once

#include "data/config.h"
#include "decode/config.h"
#include "model/config.h"
#include "train/config.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct RunConfig {
  DataConfig data;
  TokenizerConfig tokenizer;
  ModelConfig model;              // src_vocab / tgt_vocab are filled in from the tokenizer, not the file
  TrainConfig train;
  DecodeConfig decode;
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
