// gradient_variance.cpp — the signal and the noise of a parameter's gradient (see gradient_variance.h).
#include "lab/gradient_variance.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>

#include "autograd/ops.h"
#include "data/batching.h"
#include "data/corpus.h"
#include "run/config_io.h"
#include "run/run.h"
#include "tensor/parallel.h"
#include "train/checkpoint.h"
#include "train/step.h"
#include "util/error.h"
#include "util/files.h"
#include "util/suggest.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

double GradientStatistics::snr() const {
  if (variance_trace > 0) return mean_norm2 / variance_trace;
  return mean_norm2 > 0 ? std::numeric_limits<double>::infinity() : 0;
}

GradientStatistics gradient_statistics(const std::vector<std::vector<double>>& gradients) {
  const size_t K = gradients.size();
  if (K < 2) throw Error("gradient statistics need at least 2 gradients (a variance needs two), got " +
                         std::to_string(K));
  const size_t n = gradients[0].size();
  std::vector<double> mean(n, 0.0);                                       // ḡ = (1/K) Σ_k g_k      [n]
  for (const std::vector<double>& g : gradients) {
    if (g.size() != n) {
      throw Error("gradient statistics: gradients of " + std::to_string(g.size()) + " and " + std::to_string(n) +
                  " numbers; all K must be of the same parameter");
    }
    for (size_t i = 0; i < n; ++i) mean[i] += g[i] / static_cast<double>(K);
  }
  GradientStatistics s;
  s.samples = static_cast<int64_t>(K);
  s.numbers = static_cast<int64_t>(n);
  for (double m : mean) s.mean_norm2 += m * m;                            // ‖ḡ‖²
  double squared_deviations = 0;                                           // Σ_k ‖g_k − ḡ‖²
  for (const std::vector<double>& g : gradients) {
    for (size_t i = 0; i < n; ++i) squared_deviations += (g[i] - mean[i]) * (g[i] - mean[i]);
  }
  s.variance_trace = squared_deviations / static_cast<double>(K - 1);     // tr Σ̂, unbiased
  return s;
}

namespace {

// The run's model without dropout (the measurement's only randomness is hard attention's sampling), with the
// weights of `step`: a step checkpoint, or for step 0 the initial weights train.seed draws.
std::unique_ptr<Seq2Seq> model_at(const RunConfig& config, const RunTokenizers& tokenizers,
                                  const std::string& run_dir, int64_t step) {
  ModelConfig model_config = model_config_for(config, tokenizers);
  model_config.dropout = 0;
  Generator init(config.train.seed);
  auto model = std::make_unique<Seq2Seq>(model_config, init);
  if (step == 0) return model;
  CheckpointDirectory checkpoints(checkpoints_dir(run_dir), config.train.keep_last);
  const std::string path = checkpoints.step_path(step);
  if (!path_exists(path)) {
    std::vector<std::string> have{"0 (the initial weights)"};
    for (const std::string& file : checkpoints.step_files()) have.push_back(std::filesystem::path(file).stem());
    throw Error("'" + run_dir + "' has no checkpoint of step " + std::to_string(step) + " (" + path +
                "); the steps it has: " + join(have) +
                ". Train with a smaller train.checkpoint_every and a larger train.keep_last to keep more");
  }
  load_checkpoint(path, *model, nullptr);
  return model;
}

// The steps to measure: the request's, or 0 and every step checkpoint of the run.
std::vector<int64_t> steps_to_measure(const GradientVarianceRequest& request, const RunConfig& config) {
  if (!request.steps.empty()) return request.steps;
  std::vector<int64_t> steps{0};
  CheckpointDirectory checkpoints(checkpoints_dir(request.run_dir), config.train.keep_last);
  for (const std::string& file : checkpoints.step_files()) {          // <dir>/step-00001234.safetensors
    steps.push_back(std::stoll(std::filesystem::path(file).stem().string().substr(5)));
  }
  return steps;
}

// The parameters to measure, checked against the model's names.
std::vector<NamedParameter> chosen_parameters(const Seq2Seq& model, const std::vector<std::string>& names) {
  std::vector<NamedParameter> all = model.named_parameters(), chosen;
  std::vector<std::string> all_names;
  for (const NamedParameter& p : all) all_names.push_back(p.name);
  if (names.empty()) {                                                     // W_Q and W_K of every cross-attention
    for (const NamedParameter& p : all) {
      if (p.name.find(".encoder_attn.q_proj.weight") != std::string::npos ||
          p.name.find(".encoder_attn.k_proj.weight") != std::string::npos) {
        chosen.push_back(p);
      }
    }
    if (chosen.empty()) throw Error("gradvar: this model has no cross-attention q_proj / k_proj; give --param NAME");
    return chosen;
  }
  for (const std::string& name : names) {
    auto found = std::find_if(all.begin(), all.end(), [&](const NamedParameter& p) { return p.name == name; });
    if (found == all.end()) {
      throw Error("gradvar: the model has no parameter '" + name + "'; did you mean '" +
                  closest_match(name, all_names) + "'? (names as in a PyTorch state dict)");
    }
    chosen.push_back(*found);
  }
  return chosen;
}

// One gradient, as the training step computes it before summing and clipping (train/step.h's first half): the
// loss of `batch`, plus hard attention's score-function term, backward; then each chosen parameter's gradient,
// copied out.
std::vector<std::vector<double>> one_gradient(Seq2Seq& model, const Batch& batch, real label_smoothing,
                                              Generator& generator, const std::vector<NamedParameter>& chosen) {
  Ranks one_process;
  const auto part = [&](ForwardContext& ctx) {
    return translation_part(model, batch, one_process, label_smoothing, ctx);
  };
  accumulate_gradients(model, generator, one_process, /*parts=*/1, part, /*step=*/0);
  std::vector<std::vector<double>> gradients;
  for (const NamedParameter& p : chosen) {
    const real* g = p.tensor.grad();                                       // zeros if no gradient reached it
    gradients.emplace_back(g, g + p.tensor.numel());
  }
  return gradients;
}

}  // namespace

std::vector<GradientVarianceRow> measure_gradient_variance(const GradientVarianceRequest& request) {
  if (request.samples < 2) {
    throw Error("gradvar: --samples must be at least 2 (a variance needs two gradients), got " +
                std::to_string(request.samples));
  }
  for (const std::string& source : request.sources) {
    if (source != "batch" && source != "batches") {
      throw Error("gradvar: unknown source '" + source + "'; expected batch (one batch, K passes) or batches (K " +
                  "batches)");
    }
  }
  const std::string config_path = request.run_dir + "/config.yaml";
  if (!path_exists(config_path)) {
    throw Error("'" + request.run_dir + "' is not a run folder (it has no config.yaml); train one with attnlab train");
  }
  const RunConfig config = load_config(config_path);
  if (config.model.task == Task::cloze) {
    throw Error("gradvar: '" + request.run_dir + "' is a cloze reader (model.task: cloze); gradvar measures "
                "translation runs, whose hard attention samples (the readers sample nothing)");
  }
  use_threads(config.train.threads);   // as the run trained (with train.threads = 1 every gradient repeats exactly)
  const RunTokenizers tokenizers = load_run_tokenizers(config, request.run_dir);
  const ParallelText train_text = load_split(config.data, "train");
  Batcher batcher(encode_pairs(train_text, *tokenizers.src, *tokenizers.tgt, config.data.max_len, nullptr),
                  config.train.batch_tokens, config.train.seed);
  std::vector<Batch> batches;                                              // the first K batches of training
  for (int64_t epoch = 0; static_cast<int64_t>(batches.size()) < request.samples; ++epoch) {
    for (Batch& b : batcher.epoch(epoch)) batches.push_back(std::move(b));
  }
  batches.resize(static_cast<size_t>(request.samples));
  const real label_smoothing = static_cast<real>(config.train.label_smoothing);

  std::vector<GradientVarianceRow> rows;
  for (int64_t step : steps_to_measure(request, config)) {
    for (const std::string& source : request.sources) {
      // A fresh model for each source, so that hard attention's reward baseline starts afresh for each.
      std::unique_ptr<Seq2Seq> model = model_at(config, tokenizers, request.run_dir, step);
      const std::vector<NamedParameter> chosen = chosen_parameters(*model, request.parameters);
      Generator generator(request.seed);
      std::vector<std::vector<std::vector<double>>> samples(chosen.size());   // [parameter][k][n]
      for (int64_t k = 0; k < request.samples; ++k) {
        const Batch& batch = source == "batch" ? batches[0] : batches[static_cast<size_t>(k)];
        std::vector<std::vector<double>> g = one_gradient(*model, batch, label_smoothing, generator, chosen);
        for (size_t p = 0; p < chosen.size(); ++p) samples[p].push_back(std::move(g[p]));
      }
      for (size_t p = 0; p < chosen.size(); ++p) {
        rows.push_back({step, chosen[p].name, source, gradient_statistics(samples[p])});
      }
    }
  }
  return rows;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
