// trace_text.cpp — a language model's pass over one text, recorded stage by stage (trace_text.h).
#include "gpt/trace_text.h"

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

SentenceTrace trace_text(DecoderOnly& model, const std::vector<int32_t>& text, AttentionRecorder* maps) {
  if (text.empty()) throw Error("trace: the text has no tokens");
  SentenceTrace trace;
  trace.decoder_input = text;
  TracedPass pass(model, maps);                                                // no graph, the paper's path
  trace.switched_to_paper_path = pass.paper_path.switched;
  trace.logits = model.logits(one_sentence(text), pass.ctx);                   // [1, T, V]
  trace.decoder = pass.take_stages();
  return trace;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
