// trace.h — one sentence through the model, every intermediate tensor written out in reading order.
//
// The companion for stepping through the code. The forward functions hand each stage they compute to
// ctx.tracer (src/nn/context.h): `ctx.trace(*this, "q", Q)` in an attention module becomes the line
//     encoder.layers.0.self_attn.q   [1, 4, 5, 32]    0.1234 -0.5678  0.0012  0.9101 …
// — the stage's name (the module's path, as in the parameter names, plus the stage), its shape, and the first
// few numbers of its first row (index 0 on every axis but the last). Because the lines come from the forward
// code itself, they appear in the order a reader meets them in src/model/transformer.cpp and
// src/attention/<kind>.cpp:
//   encoder.input_ids, <embedding table> (E[ids]·√d_model), encoder.embed_positions (+ P), then per layer
//     [pre-LN: self_attn_layer_norm] self_attn.{q, k, v, scores, weights, context, out_proj} self_attn.residual
//     [post-LN: self_attn_layer_norm]  and the same for ffn.{hidden, linear2} with final_layer_norm,
//   [pre-LN: encoder.layer_norm], decoder.input_ids, …, decoder.layers.N.encoder_attn.*, …, logits,
// and after the logits the most likely next tokens at every target position.
// Each attention kind traces its own stages (additive its tanh features, linear φ(q) and φ(k), external the
// slot scores and the softmax over tokens, local_m and local_p the window centre p_i of every query, one line per
// head: p_head0, p_head1, …, and local_p the softmax over the window before its Gaussian ("softmax") and the
// Gaussian ("gaussian"); hard its distribution over keys ("weights") and the key it chose, "chosen"); "scores"
// are shown as the softmax sees them, −∞ where the mask hides a key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "autograd/graph.h"
#include "data/tokenizers/tokenizer.h"
#include "model/transformer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct TracedTensor {
  std::string name;  // "decoder.layers.0.encoder_attn.weights"
  Tensor value;      // a copy of the numbers at that stage (detached: no graph, no gradient)
};

// The Tracer that keeps every stage it is handed, in order.
class TraceRecorder : public Tracer {
 public:
  void trace(const std::string& name, const Tensor& value) override;
  std::vector<TracedTensor> stages;
};

// One sentence's teacher-forced pass: the decoder reads bos + target and predicts target + eos.
struct SentenceTrace {
  std::vector<int32_t> source;          // source ids (no bos, no eos: the model's source as in training)
  std::vector<int32_t> decoder_input;   // bos, then the target ids
  std::vector<TracedTensor> encoder;    // the stages of Seq2Seq::encode, in order
  std::vector<TracedTensor> decoder;    // the stages of Seq2Seq::decode, in order; the last is "logits"
  Tensor logits;                        // [1, T, V]: what decode returned
  bool switched_to_paper_path = false;  // the model was on the fused path: the trace ran the paper's (model.path)
};

// Runs encode and decode once at inference (no dropout, no graph) with a TraceRecorder, and hands every attention
// map to `maps` when one is given (the explorer's maps and neuron stages then come from one pass). Throws
// attnlab::Error for an empty source.
SentenceTrace trace_sentence(Seq2Seq& model, const std::vector<int32_t>& source, const std::vector<int32_t>& target,
                             AttentionRecorder* maps = nullptr);

// A trace shows the paper's chain, op by op: while a PaperPath lives, `model` runs the paper's path, which
// computes every stage a trace prints (Q, K, V per head, the scores, the weights), so nothing is recomputed for
// display; `switched` says the model was on the fused path (SentenceTrace::switched_to_paper_path). The path the
// model had comes back when it goes. (Every trace holds one in its TracedPass, below.)
struct PaperPath {
  explicit PaperPath(Module& m) : model(m), saved(m.compute_path()), switched(m.fused()) {
    model.use_compute_path(ComputePath::paper);
  }
  ~PaperPath() { model.use_compute_path(saved); }
  PaperPath(const PaperPath&) = delete;
  PaperPath& operator=(const PaperPath&) = delete;
  Module& model;
  ComputePath saved;
  bool switched;
};

// What every recorded pass sets up, in the order it needs it: no graph (inference: no dropout), the paper's
// path (PaperPath), and a TraceRecorder that ctx hands each stage to, with the attention maps going to `maps`
// when one is given. trace_sentence and the decoder-only model's trace_text (src/gpt/trace_text.h) each run
// their model's forward with pass.ctx and take the stages it recorded.
struct TracedPass {
  TracedPass(Module& model, AttentionRecorder* maps);
  TracedPass(const TracedPass&) = delete;
  TracedPass& operator=(const TracedPass&) = delete;
  // The stages recorded since the last call, in order; the recorder starts empty again.
  std::vector<TracedTensor> take_stages();

  NoGradGuard no_graph;
  PaperPath paper_path;        // paper_path.switched: SentenceTrace::switched_to_paper_path
  TraceRecorder recorder;
  ForwardContext ctx;          // ctx.tracer = &recorder, ctx.recorder = maps
};

// [1, T]: one sentence's ids as a batch of one.
TokenIds one_sentence(const std::vector<int32_t>& ids);

// p = softmax(logits[0, t, :]) at decoder position t, in double (the largest logit subtracted first): [V].
std::vector<double> next_token_probabilities(const SentenceTrace& trace, int64_t t);
// The `top` most likely token ids of p, best first (ties: the smaller id).
std::vector<int32_t> likeliest_tokens(const std::vector<double>& p, int64_t top);

// One stage as a line: name, shape, the first `values` numbers of the first row ("…" when there are more).
// name_width pads the name so that the shapes line up.
std::string format_stage(const TracedTensor& stage, int64_t values, size_t name_width = 0);

// At decoder position t: the `top` most likely next tokens with their probabilities (softmax of the logits),
// and the probability of the token that actually follows there (target[t], or eos after the last).
std::vector<std::string> format_next_tokens(const SentenceTrace& trace, const Tokenizer& target_tokenizer,
                                            int64_t top = 5);

// The whole trace, one line per stage, in reading order: the ids, the encoder, the decoder, the next tokens.
std::vector<std::string> format_trace(const SentenceTrace& trace, const Tokenizer& source_tokenizer,
                                      const Tokenizer& target_tokenizer, int64_t values = 4, int64_t top = 5);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
