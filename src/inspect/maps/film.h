// film.h — training as a film: one sentence pair's maps at every step checkpoint a run saved.
//
// A trained model's maps show where it ended; the film shows how it got there. For each step checkpoint of the run
// (RUN/checkpoints/step-*.safetensors, oldest first; train.checkpoint_every and train.keep_last say how many), the
// same teacher-forced pass as `attnlab attention --checkpoint STEP --target TARGET` records
//   every map's weights, the rollout and (with integration steps m > 0) the two gradient attributions,
//   the loss of the target under that checkpoint,  −(1/T) Σ_t log p(target_output[t] | …),
//   the checkpoint's own greedy translation of the source (when does it become right?),
//   and, when the sentence has a gold alignment (gold_on_picture.h), the AER of every view at that step.
// Every frame is teacher-forced on ONE target, the translation the page shows (the final model's, or --target), so
// the rows of every frame are the same tokens and a frame differs from the next only in its numbers. Beside the
// frames the run's loss curves (metrics.jsonl: training loss every log_every steps, validation loss every
// valid_every), so the moment a head starts to align can be read against the loss.
// The explorer's film view (src/inspect/pages/explorer/film.js) plays it: `attnlab attention --checkpoints all`
// writes it into the page (film.json beside it), `attnlab serve` answers POST /api/film with it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "inspect/maps/attention_maps.h"
#include "inspect/pages/report.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct FilmFrame {
  int64_t step = 0;
  std::string checkpoint;             // the file's name, step-00000040.safetensors
  std::string translation;            // the checkpoint's own greedy translation of the source
  double loss = 0;                    // −mean log p of the target tokens (</s> included), teacher-forced
  AttentionPicture picture;           // its maps (weights and value norms; no neuron stages), rollout, attribution
  std::vector<std::pair<std::string, AlignmentCounts>> scores;   // every view against the gold (empty: no gold)
};

struct Film {
  std::string run;                    // the run as the page names it
  std::string source, target;         // the sentence pair every frame is forced on
  PictureGold gold;                   // looked up once (its scores are each frame's)
  TrainingHistory history;            // metrics.jsonl; empty when the run has none
  std::vector<FilmFrame> frames;      // oldest checkpoint first
};

// The run's step checkpoints, oldest first; throws attnlab::Error when it has none, saying how to keep some.
std::vector<std::string> film_checkpoints(const std::string& run_dir);

// Records the film of `source` → `target` (the target every frame is forced on; not empty) over every step
// checkpoint of `run_dir`, with integration_steps for the attributions (0: none). `name`: the run as shown.
// Logs a line per checkpoint (spdlog). Throws attnlab::Error as record_attention does, and for a run without step
// checkpoints.
Film record_film(const std::string& run_dir, const std::string& name, const std::string& source,
                 const std::string& target, int64_t integration_steps);

// film.json, schema "attnlab-film/1" (written out at its writer, attention_json.cpp, and in
// docs/guide/explorer-and-serve.md).
std::string film_json(const Film& film);

// An upper bound of film_json's size in bytes for `frames` checkpoints of `run`'s model, a source of n tokens and
// a target of m tokens (</s> included): every map's weights, the rollout and two attributions, 10 bytes a number.
int64_t film_estimate_bytes(const LoadedRun& run, int64_t frames, int64_t n, int64_t m);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
