// config.h — the decoding chapter's settings: the `decode:` section of a config file
// (configs/README.md documents each key; src/run/config_keys.cpp lists them).
#pragma once

#include <cstdint>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct DecodeConfig {
  int64_t beam = 1;               // 1 = greedy
  double length_penalty = 0.6;    // GNMT α
  double max_len_ratio = 1.5;     // maximum output length = ratio · source length + max_len_extra
  int64_t max_len_extra = 10;
  int64_t no_repeat_ngram = 0;    // N: no n-gram of N tokens twice in an output (0 = off; no_repeat_ngram.h)
  int64_t batch_tokens = 4096;    // many sentences (eval, validation, translate from a file): sorted by length and
                                  // decoded in batches of about this many source tokens (batched.h)
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
