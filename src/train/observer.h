// observer.h — how training tells the outside world what is happening: a report after every step, the
// validations, and messages. The command line draws a progress bar from it (src/cli/train_command.cpp); tests
// and the other ranks of a job listen with the silent default.
#pragma once

#include <cstdint>
#include <string>

#include "train/validation.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

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
  double mfu = 0;                // model FLOP utilisation of the steps so far (train/utilisation.h); 0: not known
};

// How the trainer tells the outside world what is happening (the command line draws a progress bar from it).
class TrainingObserver {
 public:
  virtual ~TrainingObserver() = default;
  virtual void on_step(const StepReport&) {}
  virtual void on_validation(int64_t /*step*/, const ValidationResult&, bool /*is_best*/) {}
  virtual void on_message(const std::string& /*text*/) {}
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
