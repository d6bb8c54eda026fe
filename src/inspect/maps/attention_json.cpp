// attention_json.cpp — attention.json: one recorded sentence pair as the JSON the explorer, `attnlab serve` and a
// learner's own scripts read (schema "attnlab-attention/2", written out at attention_json() below).
#include <cmath>
#include <nlohmann/json.hpp>

#include "inspect/maps/attention_maps.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A stage's numbers as nested JSON arrays, one level per axis of its shape; −∞ (a hidden key) becomes null.
template <typename Round>
nlohmann::ordered_json nested(const NeuronStage& stage, Round rounded, size_t axis = 0, size_t offset = 0) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  size_t stride = 1;
  for (size_t a = axis + 1; a < stage.shape.size(); ++a) stride *= static_cast<size_t>(stage.shape[a]);
  for (int64_t i = 0; i < stage.shape[axis]; ++i) {
    const size_t at = offset + static_cast<size_t>(i) * stride;
    if (axis + 1 < stage.shape.size()) {
      out.push_back(nested(stage, rounded, axis + 1, at));
    } else if (std::isfinite(stage.values[at]) && stage.keys) {
      out.push_back(static_cast<int64_t>(stage.values[at]));
    } else if (std::isfinite(stage.values[at])) {
      out.push_back(rounded(stage.values[at]));
    } else {
      out.push_back(nullptr);
    }
  }
  return out;
}

// values [rows, cols] as nested arrays, rounded to 6 decimals.
nlohmann::ordered_json matrix_json(const std::vector<double>& values, size_t offset, int64_t rows, int64_t cols) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (int64_t i = 0; i < rows; ++i) {
    std::vector<double> row(static_cast<size_t>(cols));
    for (int64_t j = 0; j < cols; ++j) row[j] = std::round(values[offset + i * cols + j] * 1e6) / 1e6;
    out.push_back(std::move(row));
  }
  return out;
}

// values [heads, rows, cols] as nested arrays.
nlohmann::ordered_json heads_json(const std::vector<double>& values, int64_t heads, int64_t rows, int64_t cols) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (int64_t h = 0; h < heads; ++h) out.push_back(matrix_json(values, h * rows * cols, rows, cols));
  return out;
}

// "flow": the rollout and (when computed) the attributions, src/inspect/maps/flow.h.
nlohmann::ordered_json flow_json(const AttentionPicture& picture) {
  const int64_t S = static_cast<int64_t>(picture.source_tokens.size());
  const int64_t T = static_cast<int64_t>(picture.target_output_tokens.size());
  nlohmann::ordered_json flow;
  flow["rollout"] = {{"residual", 0.5},
                     {"encoder", matrix_json(picture.rollout.encoder, 0, S, S)},
                     {"decoder_source", matrix_json(picture.rollout.decoder_source, 0, T, S)},
                     {"decoder_target", matrix_json(picture.rollout.decoder_target, 0, T, T)}};
  const Attribution& a = picture.attribution;
  if (a.steps == 0) {
    flow["attribution"] = nullptr;
    return flow;
  }
  auto rounded = [](const std::vector<double>& xs) {
    std::vector<double> out;
    for (double x : xs) out.push_back(std::round(x * 1e6) / 1e6);
    return out;
  };
  flow["attribution"] = {{"of", "log p(target_output[t])"}, {"to", "source token embeddings E[x_s]·√d_model"},
                         {"baseline", "zero token embeddings (positions kept)"}, {"steps", a.steps},
                         {"gradient_x_input", matrix_json(a.gradient_x_input, 0, T, S)},
                         {"integrated_gradients", matrix_json(a.integrated, 0, T, S)},
                         {"log_prob", rounded(a.log_prob)}, {"baseline_log_prob", rounded(a.baseline_log_prob)},
                         {"completeness_error", rounded(a.completeness_error)}};
  return flow;
}

}  // namespace

// attention.json, schema "attnlab-attention/2":
// {
//   "schema": "attnlab-attention/2",
//   "checkpoint": "runs/x/checkpoints/best.safetensors", "step": 1750,
//   "source": "the text given", "target": "the translation (or the forced target)", "target_forced": false,
//   "tokens": {
//     "source":        ["a", "happy", …],         keys of encoder and cross maps, queries of encoder maps
//     "source_typed":  ["a", "zorblax", …],       each source token as typed (an unknown word's own text)
//     "source_unknown": [false, true, …],          true where the model read <unk>: the vocabulary lacks the word
//     "target_input":  ["<s>", "une", …],          what each decoder position reads: keys of decoder self-attention
//     "target_output": ["une", …, "</s>"]          what each decoder position predicts: the name of its row in
//                                                  decoder self- and cross-attention maps alike
//   },
//   "maps": [ {                                    encoder_self layers, then decoder_self, then cross
//     "name": "decoder.layers.0.encoder_attn",    the module's parameter prefix
//     "type": "encoder_self" | "decoder_self" | "cross",
//     "layer": 0, "kind": "scaled_dot",            kind: model.attention.{encoder,decoder,cross}.kind
//     "heads": 4, "queries": "source" | "target_output",
//     "keys": "source" | "target_input" | "slots", (slots: external attention's memory, "slot 0" …)
//     "row_normalisation": "softmax over keys",    why each query's row sums to 1 (row_normalisation())
//     "weights": [[[…]]],                          weights[head][query][key], rounded to 6 decimals
//     "value_norms": [[[…]]] | null,               ‖α_ij · f_h(x_j)‖ [head][query][key] (flow.h; Kobayashi et al.)
//     "score_scale": 0.176777,                     what q·k is multiplied by (1/√d_k; 1 with scale: false);
//                                                  null for the kinds with no q·k (additive, linear, external)
//     "window": [2, 0] | null,                     [left, right] of a windowed attention
//     "local": {"width": 2, "sigma": 1} | null,    local_m, local_p: D of the window [p_i − D, p_i + D] and the
//                                                  Gaussian's σ = D / 2 (local_p's; null for local_m, which has none)
//     "hard_eval": "argmax" | null,                hard: how this (evaluation) pass chose: argmax | expectation | sample
//     "neuron": {                                  the numbers that made the weights, from the same pass
//       "q": [[[…]]],                              q[head][query][feature]     (every kind)
//       "k": [[[…]]],                              k[head][key][feature]       (all but external)
//       "scores": [[[…]]],                         as the softmax saw them, null where the mask hid the key
//                                                  (external: z = q·M_k, [head][token][slot], no mask)
//       "tanh": [[[[…]]]], "w": [[…]],             additive: tanh(q_i + k_j)[head][query][key][feature], w[head]
//       "phi_q", "phi_k": [[[…]]],                 linear: elu + 1 of q and of k (0 for a padded key)
//       "token_softmax": [[[…]]], "memory_k": [[…]]  external: ã (softmax over tokens), M_k [slot][feature]
//       "gamma": [γ]                               sagan: the output gate
//       "centre": [[…]],                           local_m, local_p: p_i [head][query] (local_m: min(i, S_i))
//       "window": [[[first, last]]],               local_m, local_p: [head][query] the first and last key whose
//                                                  score the softmax saw (in [p_i − D, p_i + D] and not masked);
//                                                  [null, null] when it saw none
//       "softmax", "gaussian": [[[…]]],            local_p: the softmax over the window, and e^(−(j − p_i)²/2σ²),
//                                                  [head][query][key]; weight = softmax × gaussian
//       "distribution": [[[…]]],                   hard: a = softmax of the scores, what the key is chosen from
//       "chosen_key": [[…]]                        hard: [head][query] the key chosen (argmax or sample; the
//                                                  weights are a, the distribution it was chosen from);
//                                                  null where none was (hard_eval: expectation; no key seen)
//     }
//   } ],
//   "decoding": {                                  the translation step by step (the same pass's logits)
//     "beam": 1, "length_penalty": 0.6,            how it was searched (beam 1: greedy)
//     "steps": [ {"reads": "<s>", "chosen": "une", "p": 0.93,     position t reads target_input[t] and
//                 "likeliest": [{"token": "une", "p": 0.93}, …]} ],  predicts target_output[t]; top five
//     "beam_steps": [ [ {"tokens": ["une", "fille"], "log_prob": -0.2, "score": -0.2,
//                        "fate": "kept" | "finished" | "dropped"} ] ]   beam > 1: each step's 2k candidates
//   },
//   "flow": {                                      where information flows (src/inspect/maps/flow.h)
//     "rollout": {"residual": 0.5,                 Ã = 0.5·Ā + 0.5·I, Ā the head mean with rows renormalised
//       "encoder": [[…]],                          [source i][source j], rows sum to 1
//       "decoder_source": [[…]],                   [target_output t][source j]   } each row of the two
//       "decoder_target": [[…]]},                  [target_output t][target_input u]  } together sums to 1
//     "attribution": {"steps": 16,                 integrated gradients' m (midpoint rule); null with --ig-steps 0
//       "gradient_x_input": [[…]],                 [target_output t][source s]: e_s · ∂ log p_t / ∂e_s
//       "integrated_gradients": [[…]],             [t][s], baseline e' = 0 (positions kept)
//       "log_prob", "baseline_log_prob": […],      [t]: log p_t at e and at the baseline
//       "completeness_error": […]}                 [t]: Σ_s IG[t][s] − (log_prob − baseline_log_prob)
//   }
// }
std::string attention_json(const AttentionPicture& picture) {
  auto rounded = [](double x) { return std::round(x * 1e6) / 1e6; };
  nlohmann::ordered_json out;
  out["schema"] = "attnlab-attention/2";
  out["checkpoint"] = picture.checkpoint;
  out["step"] = picture.step;
  out["source"] = picture.source_text;
  out["target"] = picture.target_text;
  out["target_forced"] = picture.target_forced;
  out["tokens"] = {{"source", picture.source_tokens},
                   {"source_typed", picture.source_typed},
                   {"source_unknown", picture.source_unknown},
                   {"target_input", picture.target_input_tokens},
                   {"target_output", picture.target_output_tokens}};
  out["maps"] = nlohmann::ordered_json::array();
  for (const auto& map : picture.maps) {
    nlohmann::ordered_json entry;
    entry["name"] = map.name;
    entry["type"] = map.type;
    entry["layer"] = map.layer;
    entry["kind"] = name_of(map.kind);
    entry["heads"] = map.heads;
    entry["queries"] = map.type == "encoder_self" ? "source" : "target_output";   // decoder rows: the token predicted
    entry["keys"] = map.keys_are_slots() ? "slots" : map.type == "decoder_self" ? "target_input" : "source";
    entry["row_normalisation"] = row_normalisation(map);
    entry["weights"] = heads_json(map.weights, map.heads, map.queries, map.keys);
    entry["value_norms"] = map.value_norms.empty() ? nlohmann::ordered_json(nullptr)
                                                   : heads_json(map.value_norms, map.heads, map.queries, map.keys);
    entry["score_scale"] = map.score_scale > 0 ? nlohmann::ordered_json(rounded(map.score_scale)) : nullptr;
    entry["window"] = map.has_window ? nlohmann::ordered_json{map.window_left, map.window_right} : nullptr;
    entry["local"] = nullptr;
    if (map.local_width > 0) {
      entry["local"] = {{"width", map.local_width},
                        {"sigma", map.kind == AttentionKind::local_p ? nlohmann::ordered_json(map.local_width / 2.0) : nullptr}};
    }
    entry["hard_eval"] = map.hard_eval ? nlohmann::ordered_json(name_of(*map.hard_eval)) : nullptr;
    entry["neuron"] = nlohmann::ordered_json::object();
    for (const NeuronStage& stage : map.stages) entry["neuron"][stage.name] = nested(stage, rounded);
    out["maps"].push_back(std::move(entry));
  }
  nlohmann::ordered_json& decoding = out["decoding"];
  decoding["beam"] = picture.beam;
  decoding["length_penalty"] = picture.length_penalty;
  decoding["steps"] = nlohmann::ordered_json::array();
  for (size_t t = 0; t < picture.decoding.size(); ++t) {
    const DecodingStep& step = picture.decoding[t];
    nlohmann::ordered_json likeliest = nlohmann::ordered_json::array();
    for (const auto& [token, p] : step.likeliest) likeliest.push_back({{"token", token}, {"p", rounded(p)}});
    decoding["steps"].push_back({{"reads", picture.target_input_tokens[t]},
                                 {"chosen", step.chosen},
                                 {"p", rounded(step.chosen_probability)},
                                 {"likeliest", std::move(likeliest)}});
  }
  decoding["beam_steps"] = nlohmann::ordered_json::array();
  for (const auto& candidates : picture.beam_steps) {
    nlohmann::ordered_json step = nlohmann::ordered_json::array();
    for (const BeamCandidate& c : candidates) {
      step.push_back({{"tokens", c.tokens}, {"log_prob", rounded(c.log_prob)}, {"score", rounded(c.score)},
                      {"fate", c.fate}});
    }
    decoding["beam_steps"].push_back(std::move(step));
  }
  out["flow"] = flow_json(picture);
  return out.dump(1) + "\n";
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
