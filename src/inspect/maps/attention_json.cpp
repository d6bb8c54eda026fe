// attention_json.cpp — attention.json: one recorded sentence pair as the JSON the explorer, `attnlab serve` and a
// learner's own scripts read (schema "attnlab-attention/2", written out at attention_json() below); and film.json,
// the same pair at every step checkpoint (schema "attnlab-film/1", film_json() below).
#include <cmath>
#include <nlohmann/json.hpp>

#include "inspect/maps/attention_maps.h"
#include "inspect/maps/contrast.h"
#include "inspect/maps/film.h"

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

// An AER, precision and recall, rounded.
nlohmann::ordered_json score_json(const AlignmentCounts& counts) {
  auto rounded = [](double x) { return std::round(x * 1e4) / 1e4; };
  return {{"aer", rounded(counts.aer())}, {"precision", rounded(counts.precision())}, {"recall", rounded(counts.recall())}};
}

nlohmann::ordered_json scores_json(const std::vector<std::pair<std::string, AlignmentCounts>>& scores) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& [name, counts] : scores) out[name] = score_json(counts);
  return out;
}

// "gold": the sentence's gold alignment over words, the word of every token, and every view's score; or why none.
nlohmann::ordered_json gold_json(const PictureGold& gold) {
  if (!gold.found && gold.why.empty()) return nullptr;   // not looked for
  if (!gold.found) {
    nlohmann::ordered_json out{{"found", false}, {"why", gold.why}};
    if (!gold.reference.empty()) out["reference"] = gold.reference;
    return out;
  }
  auto links = [](const std::vector<AlignmentLink>& list) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const AlignmentLink& link : list) out.push_back({link.source, link.target});
    return out;
  };
  return {{"found", true}, {"split", gold.split}, {"line", gold.line}, {"file", gold.alignment_file},
          {"pharaoh", format_alignment(gold.alignment)},
          {"source_words", gold.source_words}, {"target_words", gold.target_words},
          {"source_word_of", gold.source_word_of}, {"target_word_of", gold.target_word_of},
          {"sure", links(gold.alignment.sure)}, {"possible", links(gold.alignment.possible)},
          {"scores", scores_json(gold.scores)}};
}

}  // namespace

// attention.json, schema "attnlab-attention/2":
// {
//   "schema": "attnlab-attention/2",
//   "task": "language_model",                      only for a decoder-only language model (language_model_maps.h):
//   "generation": {"prompt": "the old", "continuation": "king sleeps .", "prompt_tokens": 2, "max_tokens": 20,
//                  "temperature": 0, "top_k": 0, "top_p": 1, "seed": 1},   how the text was made; then "source"
//                                                  is the prompt, "target" the whole text, tokens.source empty,
//                                                  every map decoder_self, and "gold" says why there is none
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
//   },
//   "contrasts": [                                 attnlab attention --contrast (src/inspect/maps/contrast.h); [] if none
//     {"position": 2, "chosen": "grande", "alternative": "grand",   decoder position t and the two tokens
//      "p_chosen", "p_alternative": 0.8,           their probabilities at t
//      "steps": 16,                                integrated gradients' m
//      "gap": 2.1, "baseline_gap": 0.4,            Δ = log p(chosen) − log p(alternative), at e and with the source 0
//      "source_part": 1.7,                         Σ_s integrated_gradients[s]: what the source words add
//      "completeness_error": 0.001,                source_part − (gap − baseline_gap)
//      "gradient_x_input": […], "integrated_gradients": […],   [s]: each source token's share of the gap
//      "alti_plus": {"source": 0.6, "target_prefix": 0.4} | {"error": "…"}}   ALTI+'s split of position t
//   ],
//   "gold": null                                   not looked for (attnlab attention and serve look)
//         | {"found": false, "why": "…", "reference": "…"}   no gold, and why (reference: when the source is a
//                                                  corpus line but the translation shown is not its reference)
//         | {"found": true, "split": "test", "line": 12, "file": "data/toy-en-fr/test.align",
//            "pharaoh": "0-0 1-2 2-1 …",           the .align line (i-j sure, i?j possible; source word first)
//            "source_words": […], "target_words": […],   the corpus's words of the pair
//            "source_word_of": [0, 1, …],          the word of each source token (−1: none)
//            "target_word_of": [0, 1, …, -1],      the word each decoder row predicts (−1: </s>)
//            "sure": [[i, j], …], "possible": [[i, j], …],   links over words (possible: P \ S)
//            "scores": {"cross.l0.h0": {"aer": 0.1, "precision": 0.9, "recall": 0.9}, …}}   every view, as
//                                                  attnlab align names and scores it (gold_on_picture.h)
// }
std::string attention_json(const AttentionPicture& picture) {
  auto rounded = [](double x) { return std::round(x * 1e6) / 1e6; };
  nlohmann::ordered_json out;
  out["schema"] = "attnlab-attention/2";
  if (picture.generation) {   // a language model (language_model_maps.h): no source, decoder_self maps only
    const TextGeneration& g = *picture.generation;
    out["task"] = "language_model";
    out["generation"] = {{"prompt", g.prompt}, {"continuation", g.continuation}, {"prompt_tokens", g.prompt_tokens},
                         {"max_tokens", g.max_tokens}, {"temperature", g.temperature}, {"top_k", g.top_k},
                         {"top_p", g.top_p}, {"seed", g.seed}};
  }
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
  out["contrasts"] = nlohmann::ordered_json::array();
  for (const Contrast& contrast : picture.contrasts) out["contrasts"].push_back(contrast_json(contrast));
  out["gold"] = gold_json(picture.gold);
  return out.dump(1) + "\n";
}

// film.json, schema "attnlab-film/1" (film.h):
// {
//   "schema": "attnlab-film/1", "run": "runs/toy", "source": "…", "target": "…",   the pair every frame is forced on
//   "tokens": {"source": […], "target_input": […], "target_output": […]},        as in attention.json
//   "maps": [{"name", "type", "layer", "kind", "heads", "keys"}],                 the maps of every frame, in order
//   "gold": as attention.json's, without "scores" (each frame has its own),
//   "curves": {"train": [[step, loss], …], "valid": [[step, loss], …]},           metrics.jsonl
//   "frames": [ {"step": 40, "checkpoint": "step-00000040.safetensors",
//                "translation": "…",                the checkpoint's own greedy translation
//                "loss": 1.23,                      −mean log p of the target tokens, forced
//                "weights": [[[[…]]]],             [map][head][query][key], as attention.json's maps[m].weights
//                "rollout": [[…]],                 [target_output t][source s], flow.rollout.decoder_source
//                "gradient_x_input", "integrated_gradients": [[…]] | null,   flow.attribution's, --ig-steps > 0
//                "scores": {"cross.l0.h0": {"aer", "precision", "recall"}, …} | null} ]   null: no gold
// }
std::string film_json(const Film& film) {
  if (film.frames.empty()) return "{}";
  const AttentionPicture& first = film.frames.front().picture;
  const auto S = static_cast<int64_t>(first.source_tokens.size()), T = static_cast<int64_t>(first.target_output_tokens.size());
  nlohmann::ordered_json out{{"schema", "attnlab-film/1"}, {"run", film.run}, {"source", film.source}, {"target", film.target}};
  out["tokens"] = {{"source", source_labels(first)}, {"target_input", first.target_input_tokens},
                   {"target_output", first.target_output_tokens}};
  out["maps"] = nlohmann::ordered_json::array();
  for (const auto& map : first.maps) {
    out["maps"].push_back({{"name", map.name}, {"type", map.type}, {"layer", map.layer}, {"kind", name_of(map.kind)},
                           {"heads", map.heads}, {"keys", map.keys_are_slots() ? "slots" : map.type == "decoder_self" ? "target_input" : "source"}});
  }
  out["gold"] = gold_json(film.gold);
  if (film.gold.found) out["gold"].erase("scores");   // each frame has its own
  out["curves"] = {{"train", nlohmann::ordered_json::array()}, {"valid", nlohmann::ordered_json::array()}};
  for (const TrainRecord& r : film.history.train) out["curves"]["train"].push_back({r.step, r.loss});
  for (const ValidRecord& r : film.history.valid) out["curves"]["valid"].push_back({r.step, r.loss});
  out["frames"] = nlohmann::ordered_json::array();
  for (const FilmFrame& frame : film.frames) {
    const AttentionPicture& p = frame.picture;
    nlohmann::ordered_json weights = nlohmann::ordered_json::array();
    for (const auto& map : p.maps) weights.push_back(heads_json(map.weights, map.heads, map.queries, map.keys));
    const bool ig = p.attribution.steps > 0;
    out["frames"].push_back({{"step", frame.step}, {"checkpoint", frame.checkpoint}, {"translation", frame.translation},
                             {"loss", std::round(frame.loss * 1e6) / 1e6}, {"weights", std::move(weights)},
                             {"rollout", matrix_json(p.rollout.decoder_source, 0, T, S)},
                             {"gradient_x_input", ig ? matrix_json(p.attribution.gradient_x_input, 0, T, S) : nullptr},
                             {"integrated_gradients", ig ? matrix_json(p.attribution.integrated, 0, T, S) : nullptr},
                             {"scores", frame.scores.empty() ? nlohmann::ordered_json(nullptr) : scores_json(frame.scores)}});
  }
  return out.dump() + "\n";
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
