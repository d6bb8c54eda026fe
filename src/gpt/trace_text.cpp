// trace_text.cpp — a language model's pass over one text, recorded stage by stage (trace_text.h).
#include "gpt/trace_text.h"

#include <utility>

#include "autograd/graph.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

SentenceTrace trace_text(DecoderOnly& model, const std::vector<int32_t>& text, AttentionRecorder* maps) {
  if (text.empty()) throw Error("trace: the text has no tokens");
  NoGradGuard no_graph;                                  // inference: no graph, no dropout
  SentenceTrace trace;
  trace.decoder_input = text;
  PaperPath paper_path{model};
  trace.switched_to_paper_path = paper_path.switched;
  TraceRecorder recorder;
  ForwardContext ctx;
  ctx.tracer = &recorder;
  ctx.recorder = maps;                                                         // null: no maps asked for
  trace.logits = model.logits(one_sentence(text), ctx);                        // [1, T, V]
  trace.decoder = std::move(recorder.stages);
  return trace;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
