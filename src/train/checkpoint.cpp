// checkpoint.cpp — saving and restoring a run; checking a checkpoint fits before touching anything.
#include "train/checkpoint.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <system_error>
#include <utility>

#include "tensor/safetensors.h"
#include "util/error.h"
#include "util/files.h"
#include "util/quote.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace fs = std::filesystem;

namespace {

const std::string extra_prefix = "extra.";
const std::string step_file_prefix = "step-";
const std::string step_file_suffix = ".safetensors";
const std::string damaged = "; the file is damaged or was not written by attnlab's save_checkpoint";

// Shortest text that reads back as the same double ("0.25", "1e-09", "inf").
std::string double_text(double value) {
  char text[32];
  auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

// A metadata value the checkpoint must have.
const std::string& required(const std::map<std::string, std::string>& metadata, const std::string& key,
                            const std::string& path) {
  auto at = metadata.find(key);
  if (at == metadata.end()) throw Error(path + ": the checkpoint's metadata has no \"" + key + "\"" + damaged);
  return at->second;
}

// A whole number in [low, high]; `meaning` says what the range is, for the message.
int64_t parse_integer(const std::string& text, const std::string& key, const std::string& path, int64_t low = 0,
                      int64_t high = std::numeric_limits<int64_t>::max(), const std::string& meaning = "") {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw Error(path + ": the checkpoint's metadata \"" + key + "\" is " + quote(text) + ", not a whole number" +
                damaged);
  }
  if (value < low || value > high) {
    const std::string range = high == std::numeric_limits<int64_t>::max()
                                  ? "≥ " + std::to_string(low)
                                  : "in " + std::to_string(low) + " … " + std::to_string(high);
    throw Error(path + ": the checkpoint's metadata \"" + key + "\" is " + text + ", but it must be " + range +
                meaning + damaged);
  }
  return value;
}

// A number, or ±inf; not NaN, which no comparison could ever beat.
double parse_double(const std::string& text, const std::string& key, const std::string& path) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() || std::isnan(value)) {
    throw Error(path + ": the checkpoint's metadata \"" + key + "\" is " + quote(text) + ", not a number" + damaged);
  }
  return value;
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The step of a file named "step-00001234.safetensors", or nothing for any other name (best.safetensors, and
// the "….safetensors.tmp-<pid>" files an interrupted save may leave).
std::optional<int64_t> step_of_file_name(const std::string& name) {
  if (name.size() <= step_file_prefix.size() + step_file_suffix.size()) return std::nullopt;
  if (!starts_with(name, step_file_prefix)) return std::nullopt;
  if (name.compare(name.size() - step_file_suffix.size(), step_file_suffix.size(), step_file_suffix) != 0) {
    return std::nullopt;
  }
  const std::string digits =
      name.substr(step_file_prefix.size(), name.size() - step_file_prefix.size() - step_file_suffix.size());
  int64_t step = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
  if (error != std::errc() || end != digits.data() + digits.size() || step < 0) return std::nullopt;
  return step;
}

// Every step checkpoint in `directory` as (step, path), lowest step first.
std::vector<std::pair<int64_t, std::string>> list_step_files(const std::string& directory) {
  std::vector<std::pair<int64_t, std::string>> found;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, error)) {
    std::optional<int64_t> step = step_of_file_name(entry.path().filename().string());
    if (step && entry.is_regular_file()) found.emplace_back(*step, entry.path().string());
  }
  if (error) throw Error(directory + ": cannot list the checkpoint directory: " + error.message());
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

// ---- one file ----

void save_checkpoint(const std::string& path, const Module& model, const Optimizer& optimizer,
                     const CheckpointState& state) {
  if (!optimizer.owns_all()) {  // a shard's moments would make a file no run could resume from
    throw Error("cannot write " + path +
                " from one rank's shard of the optimizer; gather the shards first "
                "(sharded_optimizer.h)");
  }
  std::vector<NamedTensor> tensors;
  for (const NamedParameter& parameter : model.named_parameters()) {
    tensors.push_back({parameter.name, parameter.tensor});
  }
  for (NamedTensor& moment : optimizer.state_tensors()) tensors.push_back(std::move(moment));

  std::map<std::string, std::string> metadata;
  metadata["format"] = checkpoint_format;
  metadata["version"] = checkpoint_version;
  metadata["step"] = std::to_string(state.step);
  metadata["config"] = state.config_yaml;
  metadata["generator"] = state.generator_state;
  metadata["optimizer_steps"] = std::to_string(optimizer.steps());
  metadata["best_metric"] = double_text(state.best_metric);
  for (const auto& [key, value] : state.extra) metadata[extra_prefix + key] = value;

  save_safetensors(path, tensors, metadata);  // atomic: temporary file, fsync, rename
  spdlog::debug("checkpoint: wrote {} (step {}, {} tensors)", path, state.step, tensors.size());
}

namespace {

// Step 4 of load_checkpoint: every parameter of the model has a tensor of its shape in the file, and the file has
// no tensor beyond them and the optimizer's. Throws attnlab::Error listing up to five differences.
void check_same_model(const std::vector<NamedParameter>& parameters,
                      const std::map<std::string, const Tensor*>& in_file, const std::vector<NamedTensor>& tensors,
                      const std::string& path) {
  std::vector<std::string> differences;
  std::map<std::string, bool> is_parameter;
  for (const NamedParameter& parameter : parameters) {
    is_parameter[parameter.name] = true;
    auto at = in_file.find(parameter.name);
    if (at == in_file.end()) {
      differences.push_back("missing: " + parameter.name + " " + parameter.tensor.shape().str());
    } else if (at->second->shape() != parameter.tensor.shape()) {
      differences.push_back(parameter.name + " is " + parameter.tensor.shape().str() + " here but " +
                            at->second->shape().str() + " in the checkpoint");
    }
  }
  for (const NamedTensor& named : tensors) {
    if (starts_with(named.name, "optimizer.") || is_parameter.count(named.name)) continue;
    differences.push_back("unexpected: " + shorten(named.name) + " " + named.tensor.shape().str());  // a file's name
  }
  if (differences.empty()) return;
  std::string listed;
  for (size_t i = 0; i < differences.size() && i < 5; ++i) listed += (i ? "; " : "") + differences[i];
  if (differences.size() > 5) listed += "; and " + std::to_string(differences.size() - 5) + " more";
  throw Error(path + ": the checkpoint is for a differently shaped model (" + std::to_string(differences.size()) +
              " difference" + (differences.size() == 1 ? "" : "s") + "): " + listed +
              ". Build the model from the checkpoint's own config (its \"config\" metadata)");
}

}  // namespace

CheckpointState load_checkpoint(const std::string& path, Module& model, Optimizer* optimizer) {
  // 1. The file itself: load_safetensors refuses a missing, truncated or corrupt file, naming it.
  SafetensorsContents contents = load_safetensors(path);
  const std::map<std::string, std::string>& metadata = contents.metadata;

  // 2. Is it ours, and a version we read?
  auto format = metadata.find("format");
  if (format == metadata.end() || format->second != checkpoint_format) {
    throw Error(path + " is a safetensors file but not an attnlab checkpoint (its metadata has " +
                (format == metadata.end() ? std::string("no \"format\"") : "\"format\": " + quote(format->second)) +
                ", expected \"format\": \"" + checkpoint_format +
                "\"); attnlab checkpoints are the step-….safetensors and best.safetensors files training writes");
  }
  const std::string& version = required(metadata, "version", path);
  if (version != checkpoint_version) {
    throw Error(path + ": checkpoint format version " + quote(version) + ", but this attnlab reads version " +
                checkpoint_version + "; use the attnlab that wrote it");
  }

  // 3. The rest of the metadata, checked before anything is changed.
  CheckpointState state;
  state.step = parse_integer(required(metadata, "step", path), "step", path);
  state.config_yaml = required(metadata, "config", path);
  state.generator_state = required(metadata, "generator", path);
  try {
    Generator().set_state(state.generator_state);  // a trial run: the dropout generator is set only on resume
  } catch (const Error& error) {
    throw Error(path + ": the checkpoint's metadata \"generator\": " + error.what() + damaged);
  }
  state.best_metric = parse_double(required(metadata, "best_metric", path), "best_metric", path);
  const int64_t optimizer_steps = parse_integer(required(metadata, "optimizer_steps", path), "optimizer_steps", path);
  for (const auto& [key, value] : metadata) {
    if (starts_with(key, extra_prefix)) state.extra[key.substr(extra_prefix.size())] = value;
  }

  // 4. Does every parameter of this model have a tensor of the same shape in the file, and nothing more?
  std::map<std::string, const Tensor*> in_file;
  for (const NamedTensor& named : contents.tensors) in_file[named.name] = &named.tensor;
  const std::vector<NamedParameter> parameters = model.named_parameters();
  check_same_model(parameters, in_file, contents.tensors, path);

  // 5. The optimizer checks its own state, and copies it only if all of it fits.
  if (optimizer != nullptr) {
    try {
      optimizer->load_state(contents.tensors, optimizer_steps);
    } catch (const Error& error) {
      throw Error(path + ": " + error.what());
    }
  }

  // 6. Everything fits: copy the weights into the existing tensors (same sizes, so no handle is disturbed).
  for (const NamedParameter& parameter : parameters) {
    const std::vector<real>& saved = in_file.at(parameter.name)->values();
    Tensor target = parameter.tensor;
    std::copy(saved.begin(), saved.end(), target.values().begin());
  }
  spdlog::debug("checkpoint: loaded {} (step {})", path, state.step);
  return state;
}

int64_t checkpoint_extra_integer(const std::string& path, const CheckpointState& state, const std::string& key,
                                 int64_t low, int64_t high, const std::string& meaning) {
  std::map<std::string, std::string> metadata;  // the extras under the names they have in the file
  for (const auto& [name, value] : state.extra) metadata[extra_prefix + name] = value;
  return parse_integer(required(metadata, extra_prefix + key, path), extra_prefix + key, path, low, high, meaning);
}

// ---- a directory of them ----

bool count_as_one(int64_t older, int64_t newer, int64_t checkpoint_every) {
  return 2 * (newer - older) < checkpoint_every;  // newer − older < checkpoint_every / 2
}

CheckpointDirectory::CheckpointDirectory(std::string directory, int64_t keep_last, int64_t checkpoint_every)
    : directory_(std::move(directory)), keep_last_(keep_last), checkpoint_every_(checkpoint_every) {
  if (keep_last_ < 1) {
    throw Error("train.keep_last must be ≥ 1 (the step checkpoints kept besides the best), got " +
                std::to_string(keep_last_));
  }
  std::error_code error;
  fs::create_directories(directory_, error);
  if (error) throw Error(directory_ + ": cannot create the checkpoint directory: " + error.message());
}

std::string CheckpointDirectory::step_path(int64_t step) const {
  std::string digits = std::to_string(step);
  if (digits.size() < 8) digits.insert(0, 8 - digits.size(), '0');  // step-00001234: names sort by step
  return (fs::path(directory_) / (step_file_prefix + digits + step_file_suffix)).string();
}

bool CheckpointDirectory::has_best() const {
  return path_exists(best_path());
}

std::string CheckpointDirectory::best_path() const {
  return (fs::path(directory_) / "best.safetensors").string();
}

std::vector<std::string> CheckpointDirectory::step_files() const {
  std::vector<std::string> paths;
  for (auto& [step, path] : list_step_files(directory_)) paths.push_back(std::move(path));
  return paths;
}

std::optional<std::string> CheckpointDirectory::latest() const {
  std::vector<std::string> files = step_files();
  if (files.empty()) return std::nullopt;
  return files.back();
}

std::string CheckpointDirectory::save_step(const Module& model, const Optimizer& optimizer,
                                           const CheckpointState& state) {
  const std::string written = step_path(state.step);
  save_checkpoint(written, model, optimizer, state);

  // Keep the newest keep_last stretches, counting the one just written, which is never deleted (even if an
  // earlier run in the same directory left files with higher steps). A file that counts as one with the newer
  // file beside it (the regular checkpoint just before a stop checkpoint) shares that file's stretch: after a
  // resume the pair still stands for one, and the last keep_last files still hold keep_last to average.
  const std::vector<std::pair<int64_t, std::string>> files = list_step_files(directory_);  // lowest step first
  int64_t stretches = 0;
  for (size_t i = files.size(); i-- > 0;) {  // newest first
    const auto& [step, path] = files[i];
    const bool with_newer = i + 1 < files.size() && count_as_one(step, files[i + 1].first, checkpoint_every_);
    if (!with_newer) ++stretches;
    if (stretches <= keep_last_ || step == state.step) continue;
    std::error_code error;
    fs::remove(path, error);
    if (error) {
      spdlog::warn("checkpoint: could not delete the old checkpoint {}: {}", path, error.message());
    } else {
      spdlog::debug("checkpoint: deleted {} (keeping the last {})", path, keep_last_);
    }
  }
  return written;
}

std::string CheckpointDirectory::save_best(const Module& model, const Optimizer& optimizer,
                                           const CheckpointState& state) {
  const std::string written = best_path();
  save_checkpoint(written, model, optimizer, state);
  return written;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
