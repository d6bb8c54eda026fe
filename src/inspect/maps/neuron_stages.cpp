// neuron_stages.cpp — picking one attention map's stages out of a traced forward pass (see neuron_stages.h).
#include "inspect/maps/neuron_stages.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "attention/attention.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A traced tensor [1, …] as a stage without its batch axis; `shape` (when given) reads the same numbers in
// another shape (additive's tanh, [1, h, Tq·Tk, d_k], as [h, Tq, Tk, d_k]).
NeuronStage stage_of(const std::string& name, const Tensor& value, std::vector<int64_t> shape = {}) {
  NeuronStage stage{name, std::move(shape), {value.data(), value.data() + value.numel()}};
  if (stage.shape.empty()) {
    for (int axis = value.rank() == 1 ? 0 : 1; axis < value.rank(); ++axis) stage.shape.push_back(value.size(axis));
  }
  return stage;
}

// The local kinds' centres p_i as one stage [heads, T_query], from the lines they trace one per head (p_head0,
// p_head1, …: [1, T_query] each).
NeuronStage centre_stage(const AttentionMapRecord& map, const std::map<std::string, Tensor>& traced) {
  NeuronStage centre{"centre", {map.heads, map.queries}, {}};
  for (int64_t h = 0; h < map.heads; ++h) {
    const auto found = traced.find("p_head" + std::to_string(h));
    if (found == traced.end()) throw Error("attention map '" + map.name + "' traced no centre for head " + std::to_string(h));
    centre.values.insert(centre.values.end(), found->second.data(), found->second.data() + found->second.numel());
  }
  return centre;
}

// The local kinds' window as the softmax saw it: per head and query the first and the last key whose score is not
// −∞ (inside [p_i − D, p_i + D] and not hidden by the mask), [heads, T_query, 2]; NaN for a query that sees none.
NeuronStage window_stage(const AttentionMapRecord& map, const NeuronStage& scores) {
  NeuronStage window{"window", {map.heads, map.queries, 2}, {}, /*keys=*/true};
  for (int64_t row = 0; row < map.heads * map.queries; ++row) {
    const auto begin = scores.values.begin() + row * map.keys, end = begin + map.keys;    // [T_key]
    const auto first = std::find_if(begin, end, [](double s) { return std::isfinite(s); });
    const auto last = std::find_if(std::make_reverse_iterator(end), std::make_reverse_iterator(begin),
                                   [](double s) { return std::isfinite(s); });
    const bool any = first != end;
    window.values.push_back(any ? double(first - begin) : NAN);
    window.values.push_back(any ? double(last.base() - 1 - begin) : NAN);
  }
  return window;
}

// Hard attention's chosen key per head and query, [heads, T_query]: where the row of what it chose (a one-hot
// row at argmax evaluation) has its 1; NaN where it chose no single key (a row that saw no key, and every row
// with hard_eval: expectation, whose rows are the distribution itself even where only one key is visible).
NeuronStage chosen_key_stage(const AttentionMapRecord& map, const Tensor& chosen) {
  NeuronStage keys{"chosen_key", {map.heads, map.queries}, {}, /*keys=*/true};
  for (int64_t row = 0; row < map.heads * map.queries; ++row) {
    if (map.hard_eval == HardEval::expectation) {
      keys.values.push_back(NAN);
      continue;
    }
    const real* weights = chosen.data() + row * map.keys;                  // [T_key]
    int64_t ones = 0, key = -1;
    for (int64_t j = 0; j < map.keys; ++j) {
      if (weights[j] == 1) ++ones, key = j;
      else if (weights[j] != 0) ones = 2;                                   // a soft row: no single key
    }
    keys.values.push_back(ones == 1 ? double(key) : NAN);
  }
  return keys;
}

}  // namespace

// The numbers behind one map for the neuron view, from the trace of the pass that recorded it: the stages its
// kind computes on the way to the weights (the names it traces them by, src/attention/<kind>.cpp), what the
// local kinds and hard attention decided from them (centre and window; the chosen key), and the parameters that
// enter its score.
void attach_stages(AttentionMapRecord& map, const SentenceTrace& trace, const Module& model, const ModelConfig& config) {
  std::map<std::string, Tensor> traced;                                     // this module's stages by name
  for (const auto* stages : {&trace.encoder, &trace.decoder}) {
    for (const TracedTensor& t : *stages) {
      if (t.name.rfind(map.name + ".", 0) == 0) traced[t.name.substr(map.name.size() + 1)] = t.value;
    }
  }
  const bool local = map.kind == AttentionKind::local_m || map.kind == AttentionKind::local_p;
  const bool dot_kind = map.kind == AttentionKind::scaled_dot || map.kind == AttentionKind::simplified || map.kind == AttentionKind::sagan || local ||
                        map.kind == AttentionKind::hard;
  // (traced name, name in the JSON) of the stages this kind shows; hard's "weights" are its distribution a.
  std::vector<std::pair<std::string, std::string>> wanted = {{"q", "q"}, {"k", "k"}, {"scores", "scores"}};
  if (map.kind == AttentionKind::additive) wanted = {{"q", "q"}, {"k", "k"}, {"tanh", "tanh"}, {"scores", "scores"}};
  if (map.kind == AttentionKind::linear) wanted = {{"q", "q"}, {"k", "k"}, {"phi_q", "phi_q"}, {"phi_k", "phi_k"}};
  if (map.kind == AttentionKind::external) wanted = {{"q", "q"}, {"scores", "scores"}, {"token_softmax", "token_softmax"}};
  if (map.kind == AttentionKind::local_p) wanted.insert(wanted.end(), {{"softmax", "softmax"}, {"gaussian", "gaussian"}});
  if (map.kind == AttentionKind::hard) wanted.emplace_back("weights", "distribution");
  for (const auto& [name, shown_as] : wanted) {
    const auto found = traced.find(name);
    if (found == traced.end()) continue;
    if (name == "tanh") {
      map.stages.push_back(stage_of(name, found->second, {map.heads, map.queries, map.keys, found->second.size(3)}));
    } else {
      map.stages.push_back(stage_of(shown_as, found->second));
    }
  }
  if (local && !map.stages.empty()) {
    map.stages.push_back(centre_stage(map, traced));
    for (const NeuronStage& stage : map.stages) {
      if (stage.name == "scores") {
        map.stages.push_back(window_stage(map, stage));
        break;
      }
    }
  }
  if (map.kind == AttentionKind::hard && traced.count("chosen")) map.stages.push_back(chosen_key_stage(map, traced.at("chosen")));
  const std::vector<std::pair<std::string, std::string>> parameters = {
      {"score_proj.weight", "w"}, {"gamma", "gamma"}, {"memory_k.weight", "memory_k"}};
  for (const NamedParameter& parameter : model.named_parameters()) {
    for (const auto& [suffix, stage] : parameters) {
      if (parameter.name == map.name + "." + suffix) {
        NeuronStage entry{stage, {}, {parameter.tensor.data(), parameter.tensor.data() + parameter.tensor.numel()}};
        for (int axis = 0; axis < parameter.tensor.rank(); ++axis) entry.shape.push_back(parameter.tensor.size(axis));
        map.stages.push_back(std::move(entry));
      }
    }
  }
  if (dot_kind && !map.stages.empty()) {                 // q [h, Tq, d_k]: the scale of its d_k
    const AttentionConfig& use = map.type == "encoder_self"   ? config.encoder_attention
                                 : map.type == "decoder_self" ? config.decoder_attention
                                                              : config.cross_attention;
    map.score_scale = use.scale ? double(score_scale(map.stages.front().shape.back())) : 1.0;
  }
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
