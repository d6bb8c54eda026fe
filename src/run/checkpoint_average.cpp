// checkpoint_average.cpp — θ̄ = (1/N) Σ θ_i over N checkpoints of one model (checkpoint_average.h).
#include "run/checkpoint_average.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "run/config_io.h"
#include "run/run.h"
#include "tensor/safetensors.h"
#include "train/checkpoint.h"
#include "util/error.h"
#include "util/files.h"
#include "util/quote.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace fs = std::filesystem;

namespace {

bool is_optimizer_state(const std::string& name) {
  return name.rfind("optimizer.", 0) == 0;
}

// The step checkpoints of a run, oldest first; the run folder's own config says nothing about them, so any
// keep_last ≥ 1 lists them all.
std::vector<std::string> step_checkpoints(const std::string& run_dir) {
  if (!path_exists(checkpoints_dir(run_dir))) {
    throw Error("'" + run_dir + "' has no checkpoints folder: it is not a run folder, or its training never started");
  }
  return CheckpointDirectory(checkpoints_dir(run_dir), 1).step_files();
}

// The step of a step checkpoint's path, RUN/checkpoints/step-00001234.safetensors (step_checkpoints lists only these).
int64_t step_of(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  return std::stoll(name.substr(5, name.size() - 5 - 12));  // between "step-" and ".safetensors"
}

// The part of a checkpoint's config that gives its weights their meaning: the model: and tokenizer: sections.
std::string model_and_tokenizer_yaml(const SafetensorsContents& contents, const std::string& path) {
  auto config = contents.metadata.find("config");
  if (config == contents.metadata.end()) {
    throw Error(path + ": the checkpoint's metadata has no \"config\"; the file is damaged");
  }
  const RunConfig full = parse_config(config->second, path + " (its \"config\" metadata)");
  RunConfig shape_only;
  shape_only.model = full.model;
  shape_only.tokenizer = full.tokenizer;
  return to_yaml(shape_only);
}

// The first line where two YAML texts differ, for a message ("d_model: 64  # … | d_model: 32  # …").
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream in_a(a), in_b(b);
  std::string line_a, line_b;
  while (true) {
    const bool more_a = static_cast<bool>(std::getline(in_a, line_a));
    const bool more_b = static_cast<bool>(std::getline(in_b, line_b));
    if (!more_a && !more_b) return "";
    if (line_a != line_b) return quote(shorten(line_a, 80)) + " there, " + quote(shorten(line_b, 80)) + " here";
  }
}

// Opens a checkpoint for averaging: a safetensors file with attnlab's format metadata.
SafetensorsContents open_checkpoint(const std::string& path) {
  SafetensorsContents contents = load_safetensors(path);
  auto format = contents.metadata.find("format");
  if (format == contents.metadata.end() || format->second != checkpoint_format) {
    throw Error(path + " is not an attnlab checkpoint (its metadata has no \"format\": \"" +
                std::string(checkpoint_format) + "\"); only checkpoints of one run can be averaged");
  }
  return contents;
}

// The sums Σ θ_i of every parameter, in double, and what the first file fixes: names, shapes, config.
struct RunningSum {
  std::vector<NamedTensor> first;         // the first file's parameters: names, shapes, order
  std::vector<std::vector<double>> sums;  // [parameter][number]
  std::string config;                     // the first file's model: and tokenizer: sections
  std::string first_path;
  std::map<std::string, std::string> last_metadata;  // the newest file's (the last added)
};

void add_checkpoint(RunningSum& sum, const std::string& path) {
  SafetensorsContents contents = open_checkpoint(path);
  std::vector<NamedTensor> parameters;
  for (NamedTensor& named : contents.tensors) {
    if (!is_optimizer_state(named.name)) parameters.push_back(std::move(named));
  }
  const std::string config = model_and_tokenizer_yaml(contents, path);
  sum.last_metadata = contents.metadata;
  if (sum.first.empty()) {
    sum.first = parameters;
    sum.config = config;
    sum.first_path = path;
    for (const NamedTensor& named : parameters) sum.sums.emplace_back(named.tensor.values().size(), 0.0);
  }
  const std::string refuse = path + " cannot be averaged with " + sum.first_path + ": ";
  if (config != sum.config) {
    throw Error(refuse + "their models are configured differently (" + first_difference(sum.config, config) +
                "); only checkpoints of one model can be averaged");
  }
  if (parameters.size() != sum.first.size()) {
    throw Error(refuse + "it has " + std::to_string(parameters.size()) + " parameter tensors, the other " +
                std::to_string(sum.first.size()));
  }
  for (size_t p = 0; p < parameters.size(); ++p) {
    const NamedTensor &here = parameters[p], &there = sum.first[p];
    if (here.name != there.name || here.tensor.shape() != there.tensor.shape()) {
      throw Error(refuse + "its parameter " + std::to_string(p + 1) + " is " + here.name + " " +
                  here.tensor.shape().str() + ", the other's " + there.name + " " + there.tensor.shape().str());
    }
    const std::vector<real>& values = here.tensor.values();
    std::vector<double>& total = sum.sums[p];
    for (size_t i = 0; i < values.size(); ++i) total[i] += double(values[i]);
  }
}

}  // namespace

std::string average_checkpoint_path(const std::string& run_dir) {
  return checkpoints_dir(run_dir) + "/average.safetensors";
}

std::vector<std::string> last_checkpoints(const std::string& run_dir, int64_t n, int64_t checkpoint_every) {
  const std::vector<std::string> files = step_checkpoints(run_dir);
  if (n < 1 || static_cast<int64_t>(files.size()) < n) {
    throw Error("cannot average the last " + std::to_string(n) + " checkpoints of '" + run_dir + "': it has " +
                std::to_string(files.size()) + " step checkpoints (train.keep_last sets how many a run keeps)");
  }
  std::vector<std::string> chosen;  // newest first, until n
  for (auto file = files.rbegin(); file != files.rend() && static_cast<int64_t>(chosen.size()) < n; ++file) {
    if (!chosen.empty() && count_as_one(step_of(*file), step_of(chosen.back()), checkpoint_every)) {
      spdlog::info(
          "average: {} is {} steps before {}, under half of train.checkpoint_every = {}: the two count "
          "as one, the newer",
          fs::path(*file).filename().string(), step_of(chosen.back()) - step_of(*file),
          fs::path(chosen.back()).filename().string(), checkpoint_every);
      continue;
    }
    chosen.push_back(*file);
  }
  std::reverse(chosen.begin(), chosen.end());  // oldest first
  return chosen;
}

std::vector<std::string> best_checkpoints(const std::string& run_dir, int64_t n) {
  const std::string metrics_path = run_dir + "/metrics.jsonl";
  std::map<int64_t, double> valid_loss;  // step → loss (a resumed run's later line wins)
  std::istringstream metrics(read_text_file(metrics_path));
  std::string line;
  for (int64_t number = 1; std::getline(metrics, line); ++number) {
    nlohmann::json record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (record.is_discarded()) throw Error(metrics_path + ": line " + std::to_string(number) + " is not JSON");
    if (record.value("type", "") != "valid") continue;
    if (!record.contains("step") || !record["step"].is_number_integer() || !record.contains("loss") ||
        !record["loss"].is_number()) {
      throw Error(metrics_path + ": line " + std::to_string(number) + " is a validation without a step and a loss");
    }
    valid_loss[record["step"].get<int64_t>()] = record["loss"].get<double>();
  }
  std::vector<std::pair<double, std::string>> ranked;  // (validation loss, file)
  for (const std::string& file : step_checkpoints(run_dir)) {
    if (auto at = valid_loss.find(step_of(file)); at != valid_loss.end()) ranked.emplace_back(at->second, file);
  }
  if (n < 1 || static_cast<int64_t>(ranked.size()) < n) {
    throw Error("cannot average the best " + std::to_string(n) + " checkpoints of '" + run_dir +
                "': " + std::to_string(ranked.size()) +
                " of its step checkpoints were validated (metrics.jsonl); make "
                "train.checkpoint_every a multiple of train.valid_every, or use --last");
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> best;
  for (int64_t i = 0; i < n; ++i) best.push_back(ranked[static_cast<size_t>(i)].second);
  std::sort(best.begin(), best.end());  // oldest first: the names sort by step
  return best;
}

void average_checkpoints(const std::vector<std::string>& paths, const std::string& out) {
  if (paths.empty()) throw Error("averaging checkpoints needs at least one checkpoint");
  RunningSum sum;
  for (const std::string& path : paths) add_checkpoint(sum, path);

  // θ̄ = Σ θ_i / N, rounded once to this build's precision.
  const double N = static_cast<double>(paths.size());
  std::vector<NamedTensor>& mean = sum.first;  // the first file's tensors, read for this alone: overwritten
  for (size_t p = 0; p < mean.size(); ++p) {
    std::vector<real>& values = mean[p].tensor.values();
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<real>(sum.sums[p][i] / N);
  }

  // The newest file's metadata (step, config, generator), without its optimizer or its place in the data.
  std::map<std::string, std::string> metadata = sum.last_metadata;
  for (auto at = metadata.begin(); at != metadata.end();) {
    at = at->first.rfind("extra.", 0) == 0 ? metadata.erase(at) : std::next(at);
  }
  metadata["optimizer_steps"] = "0";
  std::string sources;
  for (const std::string& path : paths) sources += (sources.empty() ? "" : ", ") + fs::path(path).filename().string();
  metadata["extra.averaged_from"] = sources;
  save_safetensors(out, mean, metadata);  // atomic: a temporary file renamed into place
  spdlog::info("average: wrote {}, the mean of {} checkpoints ({})", out, paths.size(), sources);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
