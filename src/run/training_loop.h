// training_loop.h — the training loop, written once: what `attnlab train` runs between the start of a run and its
// last checkpoint, for the translation model (run/trainer.cpp) and the cloze readers (cloze/cloze_training.cpp).
//
//   while step < train.max_steps:
//     stop?                        a stop request (Ctrl-C, SIGTERM: request_training_stop) or train.max_minutes
//                                  spent; under mpirun every rank stops after the same step
//     step += 1
//     result = task.step(step)     the next batches through the one training step (train/step.h), which throws,
//                                  naming the step and the last checkpoint, when the loss or ‖g‖ is NaN or infinite
//     report                       the observer hears of every step; metrics.jsonl gets a line every log_every
//     task.validate_and_checkpoint a validation every train.valid_every steps, a checkpoint every checkpoint_every
//
// What differs between the two tasks is behind TrainingTask below: where the batches come from and what the
// forward pass is, what a validation measures and what a checkpoint holds (the loop says what is due; the cloze
// readers also validate after the last step, and write their one step checkpoint at the end). What comes before
// the loop (the config, the data, the model, a resume) and after it (the last checkpoint) is the caller's.
#pragma once

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "train/config.h"
#include "train/observer.h"
#include "train/step.h"
#include "train/utilisation.h"
#include "train/validation.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

enum class TrainOutcome { finished, interrupted, time_limit };

// What a training run returns.
struct TrainSummary {
  TrainOutcome outcome = TrainOutcome::finished;
  int64_t step = 0;
  std::string checkpoint;              // the last checkpoint written
  ValidationResult validation;         // the last validation (translation's; a cloze run leaves it empty)
  double seconds = 0;
  std::vector<double> losses;          // every step's loss, in order (tests compare resumed runs with them)
};

// What falls due after a step: train.valid_every and train.checkpoint_every (0: never) divide the step.
struct Due {
  bool validate = false;
  bool checkpoint = false;
};

// What the loop asks of the task it trains.
class TrainingTask {
 public:
  virtual ~TrainingTask() = default;
  // Optimizer step number `step` (1, 2, …): the task's next batches through training_step (train/step.h).
  virtual StepResult step(int64_t step) = 0;
  // The epoch of the last batch taken, for the report.
  virtual int64_t epoch() const = 0;
  // After step `step`: the validation and checkpoint that are `due`, if any (called after every step).
  virtual void validate_and_checkpoint(int64_t step, const Due& due) = 0;
  // The seconds train.max_minutes limits, given this start's: by default this start's.
  virtual double seconds_spent(double this_start) const { return this_start; }
  // The processes training together and their seconds in the gradients' all-reduce (one process: 1 and 0).
  virtual int ranks() const { return 1; }
  virtual double communication_seconds() const { return 0; }
  // Do metrics.jsonl's train lines carry tokens_per_s? (The cloze readers' lines never have.)
  virtual bool logs_tokens_per_second() const { return true; }
};

// What a run writes and counts as it trains, from this (re)start on, and the summary it returns.
class TrainingRecords {
 public:
  // Appends to run_dir/metrics.jsonl when `writes`; under mpirun rank 0 alone writes, and on the other ranks
  // the stream stays closed and takes nothing.
  TrainingRecords(const std::string& run_dir, bool writes);

  void write_line(const std::string& json);   // one JSON object, one line of metrics.jsonl, flushed
  double seconds() const;                      // since this (re)start

  int64_t tokens_seen = 0;                     // since this (re)start, for tokens per second
  Utilisation utilisation;                     // the steps' FLOPs over the GEMM peak: the MFU (measure_peak)
  TrainSummary summary;

 private:
  std::ofstream metrics_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// Measures the GEMM peak on the current threads (`threads`, as use_threads returned) and says so on `observer` (about
// 0.1–0.2 s: four 1024 × 1024 products; seconds under the sanitizers), in the model's `precision` (model.precision: a
// bfloat16 model's MFU is over the bfloat16 peak); `ranks` processes share the job. What it returns becomes the
// run's TrainingRecords::utilisation. Called before the run's clocks start: the products are not training, so they
// take nothing of train.max_minutes.
Utilisation measure_peak(int ranks, int threads, Precision precision, TrainingObserver& observer);

// Steps until train.max_steps, a stop request (Ctrl-C, SIGTERM) or the time limit (train.max_minutes), whichever
// comes first; a stop request or the time limit lets the current step finish. `step` counts the optimizer steps
// taken (0 for a new run, the checkpoint's for a resumed one); every step's loss goes into records.summary.losses.
TrainOutcome train_until_stopped(TrainingTask& task, const TrainConfig& tc, int64_t& step, TrainingRecords& records,
                                 TrainingObserver& observer);

// Asks a running loop to stop after the current step (async-signal-safe: for SIGINT / SIGTERM handlers).
void request_training_stop(int signal_number);
// Forgets any earlier stop request: train() and train_cloze() call it as they start.
void reset_training_stop();

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
