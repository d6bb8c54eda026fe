// intervention_spec.cpp — reading ablate:…, mask:… and swap:… into an Intervention (intervention_spec.h).
#include "run/intervention_spec.h"

#include <algorithm>
#include <filesystem>

#include "train/checkpoint.h"
#include "util/error.h"
#include "util/files.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

const char* spec_forms = "ablate:USE:L.H (USE: cross, encoder or decoder), mask:source:S or swap:SIDE.L=CHECKPOINT";

std::string base_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// A whole number from 0, written in digits only ("3", not "+3", "3.0" or "three"). `what`: "layer", "head", …
int64_t whole_number(const std::string& word, const std::string& what) {
  if (word.empty() || word.size() > 9 || word.find_first_not_of("0123456789") != std::string::npos) {
    throw Error("'" + word + "' is not a " + what + " number (0, 1, 2, …)");
  }
  return std::stoll(word);
}

// "*": every index below `count`; otherwise the one number.
std::vector<int64_t> indices(const std::string& word, int64_t count, const std::string& what) {
  if (word != "*") return {whole_number(word, what)};
  std::vector<int64_t> all;
  for (int64_t i = 0; i < count; ++i) all.push_back(i);
  return all;
}

// Text before and after the first `separator` (nothing after when there is none).
std::pair<std::string, std::string> split_at(const std::string& text, char separator) {
  const size_t at = text.find(separator);
  if (at == std::string::npos) return {text, ""};
  return {text.substr(0, at), text.substr(at + 1)};
}

// ablate:USE:L.H — the heads, every one checked against the model.
void read_ablate(const std::string& rest, const ModelConfig& config, Intervention& intervention) {
  const auto [use_word, target] = split_at(rest, ':');
  AttentionUse use{};
  if (use_word == "cross") {
    use = AttentionUse::cross;
  } else if (use_word == "encoder" || use_word == "decoder") {
    use = use_word == "encoder" ? AttentionUse::encoder_self : AttentionUse::decoder_self;
  } else {
    throw Error("'" + use_word + "' is not an attention: ablate:USE:L.H takes cross, encoder or decoder");
  }
  if (target.empty()) throw Error("no head: write ablate:" + use_word + ":L.H (layer L, head H), or * for all");
  const auto [layer_word, head_word] = target == "*" ? std::pair<std::string, std::string>("*", "*")
                                                     : split_at(target, '.');
  if (head_word.empty()) throw Error("'" + target + "' is not L.H (layer L, head H, each a number or *)");
  const auto before = intervention.switched_off.size();
  for (int64_t layer : indices(layer_word, layers_of(config, use), "layer")) {
    for (int64_t head : indices(head_word, heads_of(config, use), "head")) {
      check_head(config, {use, layer, head});
      intervention.switched_off.push_back({use, layer, head});
    }
  }
  const std::string title = use == AttentionUse::cross ? "cross-attention" : use_word + " self-attention";
  const std::string count = std::to_string(intervention.switched_off.size() - before);
  std::string which = "head " + head_word + " of " + title + " layer " + layer_word;
  if (layer_word == "*" && head_word == "*") {
    which = "all " + count + " heads of " + title;
  } else if (layer_word == "*") {
    which = "head " + head_word + " of every " + title + " layer (" + count + " heads)";
  } else if (head_word == "*") {
    which = "every head of " + title + " layer " + layer_word + " (" + count + " heads)";
  }
  intervention.described.push_back(which + " switched off (output zeroed)");
}

// The checkpoint file a swap names: best, latest, average, a step number, or (allow_paths) a path.
std::string swap_checkpoint(const std::string& which, const LoadedRun& run, const std::string& run_dir,
                            bool allow_paths) {
  if (which == "best" || which == "latest" || which == "average") return checkpoint_to_load(run.config, run_dir, which);
  if (!which.empty() && which.find_first_not_of("0123456789") == std::string::npos) {
    const CheckpointDirectory checkpoints(checkpoints_dir(run_dir), run.config.train.keep_last);
    const std::string path = checkpoints.step_path(whole_number(which, "step"));
    if (path_exists(path)) return path;
    std::string kept;
    for (const std::string& file : checkpoints.step_files()) kept += (kept.empty() ? "" : ", ") + base_name(file);
    throw Error("the run has no checkpoint of step " + which + " (it keeps " + (kept.empty() ? "none" : kept) + ")");
  }
  if (!allow_paths) throw Error("'" + which + "' is not best, latest, average or a step number of the run");
  if (!path_exists(which)) throw Error("no checkpoint file '" + which + "'");
  return which;
}

// swap:SIDE.L=CHECKPOINT — the layer's parameters read from the other checkpoint into a model of the same config.
void read_swap(const std::string& rest, const LoadedRun& run, const std::string& run_dir, bool allow_paths,
               SwapCheckpoints& kept, Intervention& intervention) {
  const auto [layer_text, which] = split_at(rest, '=');
  const auto [side, layer_word] = split_at(layer_text, '.');
  if (side != "encoder" && side != "decoder") {
    throw Error("'" + side + "' is not a side: swap:SIDE.L=CHECKPOINT takes encoder or decoder");
  }
  const ModelConfig& config = run.model->config();
  const int64_t layer = whole_number(layer_word, "layer");
  check_head(config, {side == "encoder" ? AttentionUse::encoder_self : AttentionUse::decoder_self, layer, 0});
  if (which.empty()) throw Error("no checkpoint: write swap:" + layer_text + "=CHECKPOINT (best, latest, a step …)");
  const SwapCheckpoints::Read& other = kept.read(swap_checkpoint(which, run, run_dir, allow_paths), config);
  LayerSwap swap{side + ".layers." + std::to_string(layer), {}};
  for (const NamedParameter& p : other.parameters) {
    if (p.name.rfind(swap.layer + ".", 0) == 0) swap.parameters.push_back(p);
  }
  intervention.swaps.push_back(std::move(swap));
  intervention.described.push_back(side + " layer " + layer_word + " with the weights of " + base_name(other.path) +
                                   " (step " + std::to_string(other.step) + ")");
}

}  // namespace

const SwapCheckpoints::Read& SwapCheckpoints::read(const std::string& path, const ModelConfig& config) {
  std::error_code error;
  // (the count as long long: the browser build's file clock counts in a 128-bit integer, which to_string lacks)
  const auto time = static_cast<long long>(std::filesystem::last_write_time(path, error).time_since_epoch().count());
  const std::string written = std::to_string(std::filesystem::file_size(path, error)) + "@" + std::to_string(time);
  for (const Read& read : kept_) {
    if (read.path == path && read.written == written) return read;
  }
  Generator unused_init(0);
  Seq2Seq other(config, unused_init);
  const CheckpointState state = load_checkpoint(path, other, nullptr);        // same shape, or an Error naming it
  if (kept_.size() >= std::max<size_t>(most_, 1)) kept_.erase(kept_.begin());
  kept_.push_back({path, written, other.named_parameters(), state.step});    // the tensors outlive `other`
  return kept_.back();
}

Intervention read_interventions(const std::vector<std::string>& specs, const LoadedRun& run, const std::string& run_dir,
                                const std::string& where, bool allow_paths, SwapCheckpoints* kept) {
  SwapCheckpoints once(1);                                                    // no cache asked: read, then dropped
  Intervention intervention;
  for (const std::string& spec : specs) {
    const auto [kind, rest] = split_at(spec, ':');
    try {
      if (kind == "ablate") {
        read_ablate(rest, run.model->config(), intervention);
      } else if (kind == "mask") {
        const auto [side, position] = split_at(rest, ':');
        if (side != "source") throw Error("'" + side + "' cannot be masked: write mask:source:S (source token S)");
        intervention.masked_source.push_back(whole_number(position, "source position"));
        intervention.described.push_back("source token " + position + " read as <unk>");
      } else if (kind == "swap") {
        read_swap(rest, run, run_dir, allow_paths, kept ? *kept : once, intervention);
      } else {
        throw Error("'" + kind + "' is not a kind of intervention: write " + spec_forms);
      }
    } catch (const Error& e) {
      throw Error(where + " " + spec + ": " + e.what());
    }
  }
  return intervention;
}

std::vector<int32_t> masked_source_ids(const Intervention& intervention, const std::vector<int32_t>& source_ids,
                                       const std::string& where) {
  const auto S = static_cast<int64_t>(source_ids.size());
  for (int64_t s : intervention.masked_source) {
    if (s >= S && S > 0) {      // an empty line stays empty: nothing to mask, nothing to translate
      throw Error("mask:source:" + std::to_string(s) + ": " + where + " has " + std::to_string(S) +
                  " source tokens (positions 0 … " + std::to_string(S - 1) + ")");
    }
  }
  return S == 0 ? source_ids : mask_source(source_ids, intervention.masked_source);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
