// trainer.h — the training loop: batches in, gradients, optimizer steps, validation, checkpoints.
//
// One optimizer step:
//   for each of `accumulate` batches:  logits = model(src, tgt_in);  loss = CE(logits, targets) / accumulate;
//                                      loss.backward()              (gradients add up across the batches)
//   clip the global gradient norm;  lr = schedule(step);  Adam(W)  update;  zero the gradients
// Every valid_every steps: validation (validation.h); every checkpoint_every steps: a checkpoint.
// A run stopped (Ctrl-C, SIGTERM, the time limit) saves a checkpoint first; `--resume` continues it so that,
// single-threaded, the losses are exactly those of a run never stopped: the checkpoint carries the weights,
// the optimizer's moments, both random generators and the position in the epoch.
// A loss that is NaN or infinite stops the run with an error naming the step; the last checkpoint is kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "train/config.h"
#include "train/validation.h"

namespace attnlab::inline ATTNLAB_PRECISION {

struct StepReport {
  int64_t step = 0, max_steps = 0;
  double loss = 0;               // this step's mean training loss per target token (label-smoothed)
  double learning_rate = 0;
  double grad_norm = 0;          // before clipping
  double tokens_per_second = 0;  // source + target tokens, averaged since the run (re)started
  double elapsed_seconds = 0;
  int64_t epoch = 0;
  int64_t log_every = 0;         // train.log_every: how often a non-terminal observer should log
  double time_limit_seconds = 0; // train.max_minutes · 60 (0: none), so an ETA can account for it
};

// How the trainer tells the outside world what is happening (the command line draws a progress bar from it).
class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  virtual void on_step(const StepReport&) {}
  virtual void on_validation(int64_t /*step*/, const ValidationResult&, bool /*is_best*/) {}
  virtual void on_message(const std::string& /*text*/) {}
};

struct TrainRequest {
  std::string config_path;             // for a new run
  std::string run_dir;                 // where everything is written (created if missing)
  std::vector<std::string> overrides;  // "train.max_steps=100"
  bool resume = false;                 // continue the run in run_dir from its latest checkpoint
};

enum class TrainOutcome { finished, interrupted, time_limit };

struct TrainSummary {
  TrainOutcome outcome = TrainOutcome::finished;
  int64_t step = 0;
  std::string checkpoint;              // the last checkpoint written
  ValidationResult validation;         // the last validation
  double seconds = 0;
  std::vector<double> losses;          // every step's loss, in order (tests compare resumed runs with them)
};

TrainSummary train(const TrainRequest& request, TrainingObserver& observer);

// Asks a running train() to stop after the current step (async-signal-safe: for SIGINT / SIGTERM handlers).
void request_training_stop(int signal_number);

// Threads for Eigen's matrix products and OpenMP loops: `requested` (train.threads), or every core when 0.
// Returns the count used.
int use_threads(int64_t requested);

}  // namespace attnlab::inline ATTNLAB_PRECISION
