// trace.cpp — recording a forward pass and writing it out as lines (trace.h explains what the lines show).
#include "inspect/maps/trace.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <utility>

#include "autograd/graph.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// "  0.1234", " -0.5678", "    -inf": one number, fixed width so that columns line up.
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%8.4f", value);
  return text;
}

std::string padded(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

// The ids of a sentence with their tokens: "17 the | 42 cat | 5 ."
std::string ids_with_pieces(const std::vector<int32_t>& ids, const Tokenizer& tokenizer) {
  std::vector<std::string> pieces = tokenizer.pieces(ids);
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    text += (i ? " | " : "") + std::to_string(ids[i]) + " " + pieces[i];
  }
  return text;
}

std::string ids_line(const std::string& name, const std::vector<int32_t>& ids, const Tokenizer& tokenizer,
                     size_t name_width) {
  const std::string shape = Shape{1, static_cast<int64_t>(ids.size())}.str();
  return padded(name, name_width) + "  " + padded(shape, 16) + "  " + ids_with_pieces(ids, tokenizer);
}

}  // namespace

void TraceRecorder::trace(const std::string& name, const Tensor& value) {
  stages.push_back({name, value.detach()});
}

TokenIds one_sentence(const std::vector<int32_t>& ids) {
  return TokenIds{Shape{1, static_cast<int64_t>(ids.size())}, ids};  // [1, T]
}

TracedPass::TracedPass(Module& model, AttentionRecorder* maps) : paper_path(model) {
  ctx.tracer = &recorder;
  ctx.recorder = maps;                                                         // null: no maps asked for
}

std::vector<TracedTensor> TracedPass::take_stages() {
  std::vector<TracedTensor> taken = std::move(recorder.stages);
  recorder.stages.clear();
  return taken;
}

SentenceTrace trace_sentence(Seq2Seq& model, const std::vector<int32_t>& source, const std::vector<int32_t>& target,
                             AttentionRecorder* maps) {
  if (source.empty()) throw Error("trace: the source sentence has no tokens");
  SentenceTrace trace;
  trace.source = source;
  trace.decoder_input.push_back(bos_id);
  trace.decoder_input.insert(trace.decoder_input.end(), target.begin(), target.end());
  const TokenIds src = one_sentence(trace.source);                             // [1, S]
  const TokenIds tgt_in = one_sentence(trace.decoder_input);                   // [1, T], bos + target

  TracedPass pass(model, maps);                                                // no graph, the paper's path
  trace.switched_to_paper_path = pass.paper_path.switched;
  Tensor memory = model.encode(src, pass.ctx);                                 // [1, S, d]
  trace.encoder = pass.take_stages();
  trace.logits = model.decoder_logits(tgt_in, memory, src, pass.ctx);         // [1, T, V]
  trace.decoder = pass.take_stages();
  return trace;
}

std::string format_stage(const TracedTensor& stage, int64_t values, size_t name_width) {
  const Tensor& value = stage.value;
  std::string line = padded(stage.name, name_width) + "  " + padded(value.shape().str(), 16) + " ";
  // The first row: index 0 on every axis but the last, so its numbers are the first in memory (row-major).
  const int64_t row = value.rank() > 0 ? value.size(value.rank() - 1) : 1;
  const int64_t shown = std::min(row, std::max<int64_t>(values, 0));
  for (int64_t i = 0; i < shown; ++i) line += " " + number(value.data()[i]);
  if (shown < row) line += "  …";
  return line;
}

std::vector<double> next_token_probabilities(const SentenceTrace& trace, int64_t t) {
  const int64_t V = trace.logits.size(2);
  const real* row = trace.logits.data() + t * V;                             // [V]
  const double largest = *std::max_element(row, row + V);
  std::vector<double> p(static_cast<size_t>(V));
  double total = 0;
  for (int64_t v = 0; v < V; ++v) total += p[v] = std::exp(double(row[v]) - largest);
  for (double& x : p) x /= total;
  return p;
}

std::vector<int32_t> likeliest_tokens(const std::vector<double>& p, int64_t top) {
  const int64_t k = std::clamp<int64_t>(top, 1, static_cast<int64_t>(p.size()));
  std::vector<int32_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [&](int32_t a, int32_t b) { return p[a] > p[b] || (p[a] == p[b] && a < b); });
  order.resize(static_cast<size_t>(k));
  return order;
}

std::vector<std::string> format_next_tokens(const SentenceTrace& trace, const Tokenizer& target_tokenizer,
                                            int64_t top) {
  const int64_t T = trace.logits.size(1);
  std::vector<std::string> previous = target_tokenizer.pieces(trace.decoder_input);
  std::vector<std::string> lines;
  for (int64_t t = 0; t < T; ++t) {
    const std::vector<double> p = next_token_probabilities(trace, t);       // [V]
    const std::vector<int32_t> order = likeliest_tokens(p, top);
    const int64_t k = static_cast<int64_t>(order.size());
    std::vector<std::string> pieces = target_tokenizer.pieces(order);

    const int32_t follows = t + 1 < T ? trace.decoder_input[t + 1] : eos_id;  // what the data says comes next
    std::string line = "next[" + std::to_string(t) + "] after " + previous[t] + ":";
    for (int64_t i = 0; i < k; ++i) {
      char probability[32];
      std::snprintf(probability, sizeof probability, "%.4f", p[order[i]]);
      line += (i ? " | " : " ") + pieces[i] + " " + probability;
    }
    char target_probability[32];
    std::snprintf(target_probability, sizeof target_probability, "%.4f", p[follows]);
    line += "   (target " + target_tokenizer.pieces({follows})[0] + " " + target_probability + ")";
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> format_trace(const SentenceTrace& trace, const Tokenizer& source_tokenizer,
                                      const Tokenizer& target_tokenizer, int64_t values, int64_t top) {
  size_t width = std::string("decoder.input_ids").size();
  for (const auto* stages : {&trace.encoder, &trace.decoder})
    for (const TracedTensor& stage : *stages) width = std::max(width, stage.name.size());

  std::vector<std::string> lines;
  if (!trace.source.empty()) lines.push_back(ids_line("encoder.input_ids", trace.source, source_tokenizer, width));
  for (const TracedTensor& stage : trace.encoder) lines.push_back(format_stage(stage, values, width));
  lines.push_back(ids_line("decoder.input_ids", trace.decoder_input, target_tokenizer, width));
  for (const TracedTensor& stage : trace.decoder) lines.push_back(format_stage(stage, values, width));
  for (std::string& line : format_next_tokens(trace, target_tokenizer, top)) lines.push_back(std::move(line));
  return lines;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
