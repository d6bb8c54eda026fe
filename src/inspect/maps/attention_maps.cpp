// attention_maps.cpp — one recorded forward pass, and the maps it yields as SVG and terminal text (the JSON: attention_json.cpp).
#include "inspect/maps/attention_maps.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <map>

#include "attention/attention.h"
#include "autograd/graph.h"
#include "data/corpus.h"
#include "decode/greedy.h"
#include "decode/translate.h"
#include "inspect/maps/flow.h"
#include "inspect/maps/neuron_stages.h"
#include "inspect/maps/trace.h"
#include "inspect/pages/explorer_page.h"
#include "model/intervention.h"
#include "util/error.h"
#include "util/files.h"
#include "util/utf8.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// "decoder.layers.1.encoder_attn" → type "cross", layer 1, and the settings of that use of attention.
void classify(AttentionMapRecord& map, const ModelConfig& config) {
  const std::string prefix = map.name.substr(0, map.name.find('.'));
  const size_t layer_at = map.name.find(".layers.");
  const size_t layer_end = layer_at == std::string::npos ? layer_at : map.name.find('.', layer_at + 8);
  const std::string module = layer_end == std::string::npos ? "" : map.name.substr(layer_end + 1);
  if (layer_end == std::string::npos) throw Error("attention map '" + map.name + "' does not name a layer");
  map.layer = std::stoll(map.name.substr(layer_at + 8, layer_end - layer_at - 8));
  const AttentionConfig* use = nullptr;
  if (prefix == "encoder" && module == "self_attn") {
    map.type = "encoder_self", use = &config.encoder_attention;
  } else if (prefix == "decoder" && module == "self_attn") {
    map.type = "decoder_self", use = &config.decoder_attention;
  } else if (prefix == "decoder" && module == "encoder_attn") {
    map.type = "cross", use = &config.cross_attention;
  } else {
    throw Error("attention map '" + map.name + "' is not an encoder, decoder or cross-attention map");
  }
  map.kind = use->kind;
  map.has_window = use->has_window, map.window_left = use->window_left, map.window_right = use->window_right;
  if (map.kind == AttentionKind::local_m || map.kind == AttentionKind::local_p) map.local_width = use->local_width;
  if (map.kind == AttentionKind::hard) map.hard_eval = use->hard_eval;
}

int type_order(const std::string& type) { return type == "encoder_self" ? 0 : type == "decoder_self" ? 1 : 2; }

size_t display_width(const std::string& text) { return utf8_characters(text).size(); }

}  // namespace

void AttentionMapCollector::record(const std::string& name, const Tensor& weights) {
  if (weights.rank() != 4 || weights.size(0) != 1) {
    throw Error("attention map '" + name + "' has shape " + weights.shape().str() +
                ", expected [1, heads, T_query, T_key]");
  }
  AttentionMapRecord map;
  map.name = name;
  map.heads = weights.size(1), map.queries = weights.size(2), map.keys = weights.size(3);   // [1, h, Tq, Tk]
  map.weights.assign(weights.values().begin(), weights.values().end());
  maps.push_back(std::move(map));
}

void finish_maps(std::vector<AttentionMapRecord>& maps, const SentenceTrace& trace, const Module& model,
                 const ModelConfig& config) {
  for (auto& map : maps) {
    classify(map, config);
    for (double& w : map.weights) {
      if (!std::isfinite(w)) throw Error("attention map '" + map.name + "' holds a non-finite weight");
    }
    attach_stages(map, trace, model, config);
    attach_value_norms(map, trace, model);
  }
  std::stable_sort(maps.begin(), maps.end(), [](const auto& a, const auto& b) {
    return std::pair(type_order(a.type), a.layer) < std::pair(type_order(b.type), b.layer);
  });
}

std::string visible_piece(const std::string& piece) {
  if (piece.empty()) return "∅";
  if (piece.find_first_not_of(' ') == std::string::npos) {
    std::string visible;
    for (size_t i = 0; i < piece.size(); ++i) visible += "␣";
    return visible;
  }
  return piece;
}

std::vector<int32_t> encode_text(const LoadedRun& run, const Tokenizer& tokenizer, const std::string& text,
                                 const std::string& what) {
  if (size_t bad = first_invalid_utf8(text); bad != std::string_view::npos) {
    throw Error("the " + what + " is not valid UTF-8 (byte " + std::to_string(bad + 1) + "); attnlab reads UTF-8 text");
  }
  std::vector<int32_t> ids = tokenizer.encode(clean_like_training(run.config, text));
  if (ids.empty()) throw Error("the " + what + " '" + text + "' has no tokens: give a sentence with words in it");
  return ids;
}

// The translation whose attention is drawn when no --target is given: decoded as the run's config asks (greedy,
// or beam search when decode.beam > 1; src/decode/translate.h).
std::vector<int32_t> translate_for_pictures(Seq2Seq& model, const std::vector<int32_t>& source_ids,
                                            const DecodeConfig& config) {
  return translate_ids(model, pad_batch({source_ids}), config)[0];
}

AttentionPicture record_attention(LoadedRun& run, const std::string& source, const std::string& forced_target,
                                  int64_t beam, int64_t integration_steps, SentenceTrace* trace_out,
                                  const std::vector<int64_t>& masked_source) {
  AttentionPicture picture;
  picture.source_text = source;
  picture.checkpoint = run.checkpoint_path;
  picture.step = run.step;
  DecodeConfig decode = run.config.decode;
  if (beam > 0) decode.beam = beam;
  picture.beam = decode.beam, picture.length_penalty = decode.length_penalty;
  const Tokenizer& target_tokenizer = *run.tokenizers.tgt;
  const std::vector<int32_t> source_ids = mask_source(encode_text(run, *run.tokenizers.src, source, "source text"),
                                                      masked_source);   // masked words read as <unk>
  std::vector<int32_t> target_ids;
  if (!forced_target.empty()) {
    target_ids = encode_text(run, target_tokenizer, forced_target, "target text");
    picture.target_text = forced_target;
    picture.target_forced = true;
  } else if (decode.beam > 1) {                          // beam search, every step's candidates kept
    BeamLog log;
    target_ids = beam_search_decode(*run.model, pad_batch({source_ids}), decode, &log)[0].tokens;
    for (const auto& step : log) {
      std::vector<BeamCandidate>& candidates = picture.beam_steps.emplace_back();
      for (const BeamCandidateLog& c : step) {
        candidates.push_back({target_tokenizer.pieces(c.tokens), c.log_prob, c.score, c.fate});
        for (auto& piece : candidates.back().tokens) piece = visible_piece(piece);
      }
    }
  } else {
    target_ids = translate_for_pictures(*run.model, source_ids, decode);
  }
  if (!picture.target_forced) picture.target_text = target_tokenizer.decode(target_ids);
  std::vector<int32_t> target_output = target_ids;                             // y … </s>
  target_output.push_back(eos_id);

  // The one teacher-forced pass: no dropout, no graph, the paper's path, a recorder and a tracer.
  AttentionMapCollector collector;
  const SentenceTrace trace = trace_sentence(*run.model, source_ids, target_ids, &collector);
  for (const auto& piece : run.tokenizers.src->pieces(source_ids)) picture.source_tokens.push_back(visible_piece(piece));
  std::vector<std::string> typed = run.tokenizers.src->surfaces(clean_like_training(run.config, source));
  if (typed.size() != source_ids.size()) typed = picture.source_tokens;   // a tokenizer that cannot say
  for (size_t s = 0; s < source_ids.size(); ++s) {
    picture.source_typed.push_back(visible_piece(typed[s]));
    picture.source_unknown.push_back(source_ids[s] == unk_id);
  }
  for (const auto& piece : target_tokenizer.pieces(trace.decoder_input)) picture.target_input_tokens.push_back(visible_piece(piece));
  for (const auto& piece : target_tokenizer.pieces(target_output)) picture.target_output_tokens.push_back(visible_piece(piece));

  finish_maps(collector.maps, trace, *run.model, run.model->config());
  picture.maps = std::move(collector.maps);

  // The decoding view: at each position, the next-token distribution of the same pass.
  for (size_t t = 0; t < target_output.size(); ++t) {
    const std::vector<double> p = next_token_probabilities(trace, static_cast<int64_t>(t));   // [V]
    DecodingStep step{picture.target_output_tokens[t], p[target_output[t]], {}};
    for (int32_t id : likeliest_tokens(p, 5)) step.likeliest.emplace_back(visible_piece(target_tokenizer.pieces({id})[0]), p[id]);
    picture.decoding.push_back(std::move(step));
  }
  picture.rollout = attention_rollout(picture.maps, static_cast<int64_t>(source_ids.size()),
                                      static_cast<int64_t>(target_output.size()));
  if (integration_steps > 0) {
    picture.attribution = attribute_to_source(*run.model, source_ids, trace.decoder_input, target_output, integration_steps);
  }
  if (trace_out) *trace_out = trace;
  spdlog::debug("recorded {} attention maps for '{}' → '{}'", picture.maps.size(), source, picture.target_text);
  return picture;
}

std::string type_title(const std::string& type) {
  if (type == "encoder_self") return "encoder self-attention";
  if (type == "decoder_self") return "decoder self-attention";
  return "cross-attention";
}

std::vector<std::string> source_labels(const AttentionPicture& picture) {
  std::vector<std::string> labels = picture.source_tokens;
  for (size_t s = 0; s < labels.size() && s < picture.source_typed.size(); ++s) {
    if (picture.source_unknown[s]) labels[s] = picture.source_typed[s] + "?";
  }
  return labels;
}

std::vector<std::string> query_labels(const AttentionPicture& picture, const AttentionMapRecord& map) {
  // A decoder position is named by the token it predicts, in decoder self- and cross-attention alike (it reads
  // target_input[t], one to the left), so the two maps' rows carry the same labels.
  if (map.type == "encoder_self") return source_labels(picture);
  return picture.target_output_tokens;
}

std::vector<std::string> key_labels(const AttentionPicture& picture, const AttentionMapRecord& map) {
  if (map.keys_are_slots()) {
    std::vector<std::string> slots;
    for (int64_t s = 0; s < map.keys; ++s) slots.push_back("slot " + std::to_string(s));
    return slots;
  }
  return map.type == "encoder_self" || map.type == "cross" ? source_labels(picture) : picture.target_input_tokens;
}

Heatmap heatmap_of(const AttentionPicture& picture, const AttentionMapRecord& map, int64_t head) {
  Heatmap heatmap;
  heatmap.title = type_title(map.type) + " · layer " + std::to_string(map.layer) + " · head " + std::to_string(head) +
                  " (" + name_of(map.kind) + ")";
  heatmap.row_labels = query_labels(picture, map);
  heatmap.column_labels = key_labels(picture, map);
  const bool text = picture.generation.has_value();   // a language model's: one text, no source
  heatmap.row_axis = map.type == "encoder_self" ? "source (query)"
                     : text                     ? "next token predicted (query)"
                                                : "target token predicted (query)";
  heatmap.column_axis = map.keys_are_slots()       ? "memory slot (key)"
                        : text                       ? "text token read (key)"
                        : map.type == "decoder_self" ? "target input (key)"
                                                     : "source (key)";
  if (static_cast<int64_t>(heatmap.row_labels.size()) != map.queries ||
      static_cast<int64_t>(heatmap.column_labels.size()) != map.keys) {
    throw Error("attention map '" + map.name + "' is " + std::to_string(map.queries) + " × " +
                std::to_string(map.keys) + " but the sentence pair has " + std::to_string(heatmap.row_labels.size()) +
                " × " + std::to_string(heatmap.column_labels.size()) + " tokens");
  }
  const auto begin = map.weights.begin() + head * map.queries * map.keys;
  heatmap.weights.assign(begin, begin + map.queries * map.keys);                    // [Tq, Tk] of this head
  for (const NeuronStage& stage : map.stages) {                  // hard: the chosen key, outlined on a
    if (stage.name != "chosen_key") continue;
    for (int64_t i = 0; i < map.queries; ++i) {
      const double key = stage.values[static_cast<size_t>(head * map.queries + i)];
      heatmap.marked.push_back(std::isfinite(key) ? static_cast<int64_t>(key) : -1);
    }
  }
  return heatmap;
}

std::string heatmap_file_name(const AttentionMapRecord& map, int64_t head) {
  return map.type + "-layer" + std::to_string(map.layer) + "-head" + std::to_string(head) + ".svg";
}

std::string row_normalisation(const AttentionMapRecord& map) {
  if (map.kind == AttentionKind::external) return "L1 over memory slots, after a softmax over tokens";
  if (map.kind == AttentionKind::linear) return "phi(q).phi(k) divided by its sum over keys";
  if (map.kind == AttentionKind::local_p) return "softmax over the window, times a Gaussian around p_i (sums to less than 1)";
  if (map.kind == AttentionKind::hard) return "softmax over keys: the distribution a the key is drawn from (the chosen key outlined)";
  return "softmax over keys";
}

std::string terminal_heatmap(const AttentionPicture& picture, const AttentionMapRecord& map, int64_t head) {
  const Heatmap heatmap = heatmap_of(picture, map, head);
  auto shade = [](double w) -> std::string {
    if (w < 0.1) return "  ";
    if (w < 0.3) return "░░";
    if (w < 0.5) return "▒▒";
    if (w < 0.75) return "▓▓";
    return "██";
  };
  size_t label_width = 0;
  for (const auto& label : heatmap.row_labels) label_width = std::max(label_width, display_width(label));
  std::vector<std::vector<std::string>> columns;   // each column label as its characters, written downwards
  size_t tallest = 0;
  for (const auto& label : heatmap.column_labels) {
    columns.push_back(utf8_characters(label));
    tallest = std::max(tallest, columns.back().size());
  }
  std::string out = heatmap.title + "\n";
  for (size_t line = 0; line < tallest; ++line) {
    out += std::string(label_width + 2, ' ');
    for (const auto& characters : columns) out += (line < characters.size() ? characters[line] : " ") + " ";
    out += "\n";
  }
  for (size_t i = 0; i < heatmap.row_labels.size(); ++i) {
    out += std::string(label_width - display_width(heatmap.row_labels[i]), ' ') + heatmap.row_labels[i] + " │";
    for (size_t j = 0; j < heatmap.column_labels.size(); ++j) out += shade(heatmap.weights[i * heatmap.column_labels.size() + j]);
    out += "│\n";
  }
  out += std::string(label_width + 2, ' ') + "rows: " + heatmap.row_axis + "; columns: " + heatmap.column_axis + "\n";
  out += std::string(label_width + 2, ' ') + "\"  \" < 0.1 ≤ ░░ < 0.3 ≤ ▒▒ < 0.5 ≤ ▓▓ < 0.75 ≤ ██\n";
  return out;
}

std::vector<std::string> write_attention_folder(const AttentionPicture& picture, const std::string& out_dir,
                                                const AttentionPicture* compared, const std::vector<std::string>& names,
                                                const std::string& film_json) {
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error) throw Error("cannot create the folder '" + out_dir + "': " + error.message());
  std::vector<std::string> written;
  auto write = [&](const std::string& name, const std::string& contents) {
    const std::string path = (std::filesystem::path(out_dir) / name).string();
    write_file_atomically(path, contents);
    written.push_back(path);
  };
  const std::string json = attention_json(picture);
  write("attention.json", json);
  for (const auto& map : picture.maps) {
    for (int64_t head = 0; head < map.heads; ++head) {
      write(heatmap_file_name(map, head), heatmap_svg(heatmap_of(picture, map, head), HeatmapStyle{}));
    }
  }
  const std::string compared_json = compared ? attention_json(*compared) : "";
  if (compared) write("compared.json", compared_json);
  if (!film_json.empty()) write("film.json", film_json);
  write("index.html", explorer_page_html("attnlab explorer — " + picture.source_text, json, {}, compared_json, names,
                                         std::nullopt, film_json));
  return written;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
