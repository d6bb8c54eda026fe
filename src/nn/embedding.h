// embedding.h — token embeddings (scaled by √d_model) and positional encodings.
//
// The Transformer's input at position t is  x_t = E[token_t] · √d_model + P[t].
//   * E [V, d_model] is learned; the paper multiplies it by √d_model so that, with E initialised small
//     (N(0, d_model^-1/2)), token and position signals start at comparable sizes (§3.4).
//   * P encodes the position. Sinusoidal (§3.5): P[t, 2i] = sin(t / 10000^(2i/d)), P[t, 2i+1] = cos(…), with
//     the frequencies 10000^(-2i/d) computed as exp(2i · (−ln 10000 / d)) for accuracy; defined for any t, so it
//     is valid past the longest training sentence. Learned: a parameter table [max_len, d_model]. None: no
//     positions at all — the model then sees a bag of words (an ablation worth running).
#pragma once

#include <string>

#include "nn/module.h"
#include "tensor/token_ids.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

class Embedding : public Module {
 public:
  Embedding(int64_t vocab_size, int64_t d_model, Generator& init);
  // ids [B, T] → [B, T, d_model], already multiplied by √d_model.
  Tensor forward(const TokenIds& ids) const;
  Tensor weight;  // [V, d_model]
};

// How a token learns its position (model.positional): a fixed sinusoid, a learned row, or not at all.
enum class PositionalKind { sinusoidal, learned, none };
const std::vector<std::string>& choice_names(PositionalKind);   // "sinusoidal", "learned", "none" (util/choice.h)

class PositionalEncoding : public Module {
 public:
  // max_len bounds the learned table only; sinusoidal positions are computed for any length.
  PositionalEncoding(PositionalKind kind, int64_t d_model, int64_t max_len, Generator& init);
  // x [B, T, d_model] → x + P[0:T]  (unchanged for `none`)
  Tensor forward(const Tensor& x) const;
  // x [B, T, d_model] → x + P[start : start + T]: positions from `start` on (incremental decoding feeds one
  // position at a time).
  Tensor forward(const Tensor& x, int64_t start) const;
  // The sinusoidal table [T, d_model] of positions start … start + T − 1 (a constant: no gradient).
  static Tensor sinusoidal_table(int64_t length, int64_t d_model, int64_t start = 0);
  PositionalKind kind;
  Tensor weight;  // [max_len, d_model], learned positions only
 private:
  int64_t d_model_, max_len_;
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
