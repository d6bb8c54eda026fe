// film.cpp — one sentence pair recorded at every step checkpoint of a run (film.h).
#include "inspect/maps/film.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <filesystem>

#include "inspect/align/gold_on_picture.h"
#include "train/checkpoint.h"
#include "util/error.h"
#include "util/files.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// One checkpoint's frame: the forced pass (maps, rollout, attributions), its loss, and its own translation.
FilmFrame record_frame(LoadedRun& run, const Film& film, int64_t integration_steps) {
  FilmFrame frame;
  frame.step = run.step;
  frame.checkpoint = std::filesystem::path(run.checkpoint_path).filename().string();
  frame.picture = record_attention(run, film.source, film.target, 1, integration_steps);
  for (AttentionMapRecord& map : frame.picture.maps) map.stages.clear();   // the neuron view is not filmed
  double nll = 0;
  for (const DecodingStep& step : frame.picture.decoding) nll -= std::log(std::max(step.chosen_probability, 1e-300));
  frame.loss = nll / static_cast<double>(std::max<size_t>(1, frame.picture.decoding.size()));
  const std::vector<int32_t> source_ids = encode_text(run, *run.tokenizers.src, film.source, "source text");
  frame.translation = run.tokenizers.tgt->decode(translate_for_pictures(*run.model, source_ids, run.config.decode));
  return frame;
}

}  // namespace

std::vector<std::string> film_checkpoints(const std::string& run_dir) {
  std::vector<std::string> files = CheckpointDirectory(checkpoints_dir(run_dir), 1).step_files();
  if (files.empty()) {
    throw Error(run_dir + " has no step checkpoints in " + checkpoints_dir(run_dir) + " to make a film of; train " +
                "with train.checkpoint_every (how often) and train.keep_last (how many are kept) set");
  }
  return files;
}

Film record_film(const std::string& run_dir, const std::string& name, const std::string& source,
                 const std::string& target, int64_t integration_steps) {
  if (target.empty()) throw Error("a film needs the target every frame is forced on");
  const std::vector<std::string> files = film_checkpoints(run_dir);
  Film film;
  film.run = name, film.source = source, film.target = target;
  const std::string metrics = run_dir + "/metrics.jsonl";
  if (path_exists(metrics)) film.history = read_metrics(metrics);
  for (size_t n = 0; n < files.size(); ++n) {
    spdlog::info("film: checkpoint {} of {}: {}", n + 1, files.size(), files[n]);
    LoadedRun run = load_run(run_dir, files[n]);
    FilmFrame frame = record_frame(run, film, integration_steps);
    if (n == 0) {
      film.gold = find_gold(run, frame.picture);   // the same for every checkpoint: one lookup
      film.gold.scores.clear();
    }
    if (film.gold.found) frame.scores = score_views(run, frame.picture, film.gold);
    film.frames.push_back(std::move(frame));
  }
  return film;
}

int64_t film_estimate_bytes(const LoadedRun& run, int64_t frames, int64_t n, int64_t m) {
  const ModelConfig& model = run.config.model;
  const auto N = static_cast<double>(n), M = static_cast<double>(m), heads = static_cast<double>(model.heads);
  // Weights and value norms of every map (2 numbers a weight), then the rollout [m, n] and two attributions [m, n].
  const double per_frame = 2 * heads * (static_cast<double>(model.encoder_layers) * N * N +
                                        static_cast<double>(model.decoder_layers) * (M * M + M * N)) +
                           3 * M * N + 64;
  return static_cast<int64_t>(std::min(per_frame * static_cast<double>(frames) * 10.0, 9e18));
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
