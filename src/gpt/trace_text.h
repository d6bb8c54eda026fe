// trace_text.h — one text through a decoder-only language model (decoder_only.h), every intermediate tensor kept.
//
// The language model's side of `attnlab trace` (src/inspect/maps/trace.h explains the lines a trace shows): one
// pass over bos + the text, with no source and no encoder, so SentenceTrace::encoder stays empty and
// SentenceTrace::decoder holds the model's stages, decoder.input_ids … decoder.layers.N.self_attn.* … logits. The
// model runs the paper's path for the pass, set up by the TracedPass a translator's trace uses too.
#pragma once

#include <cstdint>
#include <vector>

#include "gpt/decoder_only.h"
#include "inspect/maps/trace.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// One pass over `text` (bos first) at inference (no dropout, no graph): decoder_input is `text`, the stages are
// the model's, logits [1, T, V]; every attention map goes to `maps` when one is given. Throws attnlab::Error for
// no text.
SentenceTrace trace_text(DecoderOnly& model, const std::vector<int32_t>& text, AttentionRecorder* maps = nullptr);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
