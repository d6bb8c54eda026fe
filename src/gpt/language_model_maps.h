// language_model_maps.h — the attention of a decoder-only language model (gpt/decoder_only.h) over one text,
// for `attnlab attention`, `attnlab report` and `attnlab serve` on a run with model.task: language_model.
//
// The model continues a prompt (gpt/sampling.h: greedy at temperature 0, else drawn with the seed), then one
// forward pass over
//   decoder input   <s> t_1 … t_{n−1}        (the text's tokens shifted right, as in training)
//   predicted           t_1 … t_n            (prompt tokens, then the continuation)
// with an AttentionRecorder records every layer's masked self-attention a[h, i, j], j ≤ i, and the tracer the
// stages behind each weight: the same AttentionPicture a translation makes (attention_maps.h), with no source,
// no encoder and no cross-attention — only decoder_self maps — and picture.generation saying how the text came
// to be. Row i is named by the token it predicts (t_{i+1}), columns by the token each position reads, as the
// translator's decoder maps are. The flow view's rollout is the decoder's own (decoder_target); gradient
// attribution to a source, gold alignments, contrasts, films and interventions are for translations only.
#pragma once

#include <cstdint>
#include <string>

#include "gpt/language_model.h"
#include "gpt/sampling.h"
#include "inspect/maps/attention_maps.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// How the prompt is continued before its attention is drawn.
struct GenerationAsk {
  int64_t max_tokens = 0;                 // new tokens at most (0: draw the prompt alone)
  SamplingConfig sampling{0.0, 0, 1.0};   // greedy unless a temperature is given
  uint64_t seed = 1;
};

// The most new tokens a picture continues the prompt by: each one adds a row and a column to every map.
constexpr int64_t picture_tokens_most = 1000;

// Continues `prompt` as `ask` says and records the pass over the whole text (the file comment). Throws
// attnlab::Error naming the option for sampling settings out of range or max_tokens outside 0 …
// picture_tokens_most, and for a text with no tokens (an empty prompt and nothing generated).
AttentionPicture record_text_attention(LoadedLanguageModel& run, const std::string& prompt, const GenerationAsk& ask);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
