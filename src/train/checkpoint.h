// checkpoint.h — everything a run needs to stop and carry on exactly where it was, in one safetensors file.
//
// A checkpoint is a safetensors file (src/tensor/safetensors.h) that Python can open with numpy alone:
//   tensors    the model's parameters under their own names     encoder.layers.0.self_attn.q_proj.weight
//              the optimizer's moments (optimizer.h)             optimizer.exp_avg.<name>, optimizer.exp_avg_sq.<name>
//   metadata   format = "attnlab-checkpoint", version = "1"      what the file is
//              step              the training step it was written at
//              config            the run's YAML config text, so the model can be rebuilt from the file alone
//              generator         the random generator's state (random.h), so dropout and shuffling continue
//                                with the numbers an uninterrupted run would have drawn
//              optimizer_steps   the optimizer's t, for Adam's bias correction
//              best_metric       the best validation score so far (shortest round-trip text, "inf" allowed)
//              extra.<key>       anything else the trainer wants to keep (data position, elapsed time, …)
// Writing is atomic (a temporary file renamed into place), so a crash mid-save leaves the previous checkpoint.
//
// Loading trusts nothing: a file that is not an attnlab checkpoint, a checkpoint for a differently shaped
// model, or a damaged file ends in one attnlab::Error that names the file and the problem, and nothing in
// the model or the optimizer has changed. Every metadata value is checked where it is read: a missing field,
// text where a number belongs, a negative step or a generator state that does not parse names the file and the
// field; the extras are the trainer's to read, with checkpoint_extra_integer(). Values are copied into the
// existing parameter tensors, so handles held elsewhere (the optimizer's, the model's members) stay valid.
//
// CheckpointDirectory keeps a run's checkpoints together:
//   <dir>/step-00001234.safetensors   the last `keep_last` periodic checkpoints (older ones are deleted)
//   <dir>/best.safetensors            the one with the best validation score
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nn/module.h"
#include "tensor/random.h"
#include "train/optimizer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct CheckpointState {
  int64_t step = 0;                                   // training steps completed
  std::string config_yaml;                            // the run's config, as YAML text
  std::string generator_state = Generator().state();  // Generator::state(); by default a fresh generator's,
                                                      // so that a default CheckpointState saves a loadable file
  double best_metric = 0;                             // best validation score so far (the trainer decides its meaning)
  std::map<std::string, std::string> extra;           // stored as metadata "extra.<key>"
};

constexpr const char* checkpoint_format = "attnlab-checkpoint";
constexpr const char* checkpoint_version = "1";

// Writes model weights, optimizer state and `state` to `path`, atomically. Throws attnlab::Error naming the
// path if the file cannot be written.
void save_checkpoint(const std::string& path, const Module& model, const Optimizer& optimizer,
                     const CheckpointState& state);

// Reads `path` into `model` (and `optimizer`'s moments and step count, unless it is nullptr, as when only
// translating) and returns the rest. Throws attnlab::Error, naming the file, for a file that is missing, damaged
// or truncated, not an attnlab checkpoint, of another version, or for another model shape (the message lists up
// to five differences: "x is [8, 8] here but [16, 16] in the checkpoint", "missing: …", "unexpected: …").
// On error neither the model nor the optimizer has changed.
CheckpointState load_checkpoint(const std::string& path, Module& model, Optimizer* optimizer);

// The whole number state.extra[key], read from the checkpoint `path`, in [low, high]. Throws attnlab::Error naming
// the file and the field "extra.<key>" when it is missing, not a whole number or out of range (`meaning` ends
// that message: ", the batches in one epoch").
int64_t checkpoint_extra_integer(const std::string& path, const CheckpointState& state, const std::string& key,
                                 int64_t low, int64_t high, const std::string& meaning);

// Whether step checkpoints at steps `older` < `newer` are one stretch of training: written less than half a save
// interval apart, newer − older < checkpoint_every / 2 — the stop checkpoint a few steps after a regular one, when
// train.max_minutes or Ctrl-C ended the run (step-5600, then step-5605). An average counts such a pair once
// (run/checkpoint_average.h), and a checkpoint directory keeps it as one of its keep_last.
bool count_as_one(int64_t older, int64_t newer, int64_t checkpoint_every);

class CheckpointDirectory {
 public:
  // Creates `directory` if needed. keep_last ≥ 1: how many step checkpoints to keep besides best.safetensors,
  // counting two that count_as_one (given the run's checkpoint_every; 0: every file counts) as one.
  CheckpointDirectory(std::string directory, int64_t keep_last, int64_t checkpoint_every = 0);

  // Writes <dir>/step-<state.step, 8 digits>.safetensors, then deletes the oldest step files so that keep_last
  // stretches remain, newest first (a stop checkpoint and the regular one just before it are one stretch: both
  // stay), never the one just written. Returns the path written.
  std::string save_step(const Module& model, const Optimizer& optimizer, const CheckpointState& state);

  // Writes <dir>/best.safetensors (replacing the previous best). Returns the path written.
  std::string save_best(const Module& model, const Optimizer& optimizer, const CheckpointState& state);

  // The step checkpoint with the highest step number, if there is one: where a resumed run starts.
  std::optional<std::string> latest() const;

  // Every step checkpoint in the directory, lowest step first.
  std::vector<std::string> step_files() const;

  std::string step_path(int64_t step) const;  // <dir>/step-00001234.safetensors
  std::string best_path() const;              // <dir>/best.safetensors
  bool has_best() const;                      // best.safetensors exists
  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
  int64_t keep_last_;
  int64_t checkpoint_every_;  // 0: no two files count as one
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
