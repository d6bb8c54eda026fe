// trainer.h — the training loop: batches in, gradients, optimizer steps, validation, checkpoints.
//
// train() (trainer.cpp) reads as its own table of contents; it calls, in this order:
//   set_up_run()           the config (the file and its --set overrides, or the run folder's own config.yaml
//                          on --resume), the run folder, the threads
//   load_data()            training text, the tokenizers (trained on it, or loaded on --resume), token ids;
//                          then the validation text, token ids and fixed batches
//   build_model()          the model (weights drawn from train.seed), Adam(W), the dropout generator (seed + 1)
//   start_or_resume()      step 0 in epoch 0, or the latest checkpoint; then the effective config.yaml is
//                          written, and only now is the folder a run: a start that fails before this point
//                          removes what it created (StartAttempt), so the same command works once the cause is
//                          fixed, and never touches what the folder held before
//   train_until_stopped()  train_step() after train_step() until train.max_steps, a stop request or the time
//                          limit; after each step report_step() (the observer; metrics.jsonl every log_every
//                          steps) and validate_and_checkpoint() (every valid_every and checkpoint_every steps)
//   save_before_leaving()  a checkpoint of the last step, unless it has one; a validation and best.safetensors
//                          if the run never validated
//
// One optimizer step, train_step(), in the order of the paper (§5.3, §5.4):
//   zero the gradients                          (first, not last: every step starts from zero gradients)
//   for each of `accumulate` batches:  loss = CE_ls(model(src, tgt_in), targets)   forward and loss, one call
//                                      (loss / accumulate).backward()   gradients add up across the batches
//   with several ranks (mpirun; data_parallel.h): each rank runs the loop above on its rows of the batch, its loss
//   weighted by its share of the batch's target tokens, and then the gradients are summed over the ranks
//   clip the global gradient norm;  lr = schedule(step);  Adam(W) update
//   with train.shard_optimizer on several ranks (ZeRO stage 1, sharded_optimizer.h): each rank sums, clips and
//   updates only its 1/N of the numbers, keeping Adam's moments for those alone, and the ranks then all-gather
// A run stopped (Ctrl-C, SIGTERM, the time limit) finishes its step and saves a checkpoint first; `--resume`
// continues it so that, single-threaded, the losses are exactly those of a run never stopped: the checkpoint
// carries the weights, the optimizer's moments, the dropout generator and the position in the epoch.
// A loss or gradient norm that is NaN or infinite stops the run with an error naming the step and the last
// checkpoint, which is kept.
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
  int ranks = 1;                 // processes training together (data_parallel.h); 1 without mpirun
  double communication_seconds = 0;  // of elapsed_seconds, in the gradients' all-reduce (0 for one process)
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
// Has a stop been asked for since train() started? (The cloze readers' loop, cloze_training.h, asks it too.)
bool training_stop_requested();

// Threads for Eigen's matrix products and OpenMP loops: `requested` (train.threads), or every core when 0.
// Returns the count used.
int use_threads(int64_t requested);

}  // namespace attnlab::inline ATTNLAB_PRECISION
