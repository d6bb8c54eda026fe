// trainer.h — training the translation model: a run from its config file to its last checkpoint.
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
//   train_until_stopped()  the training loop (training_loop.h), the one the cloze readers run too: train_step()
//                          after train_step() until train.max_steps, a stop request or the time limit; after each
//                          step a report (the observer; metrics.jsonl every log_every steps) and
//                          validate_and_checkpoint() (every valid_every and checkpoint_every steps)
//   save_before_leaving()  a checkpoint of the last step, unless it has one; a validation and best.safetensors
//                          if the run never validated
//
// One optimizer step is train/step.h's training_step(), the same step bench, gradvar and the cloze readers run:
// zero, forward and loss, backward over train.accumulate batches, Σ over the ranks and clip, schedule, Adam(W).
// Under mpirun each rank runs it on its rows of every batch (distributed/data_parallel_training.h).
// A run stopped (Ctrl-C, SIGTERM, the time limit) finishes its step and saves a checkpoint first; `--resume`
// continues it so that, single-threaded, the losses are exactly those of a run never stopped: the checkpoint
// carries the weights, the optimizer's moments, the dropout generator and the position in the epoch
// (data/batch_stream.h).
// A loss or gradient norm that is NaN or infinite stops the run with an error naming the step and the last
// checkpoint, which is kept.
#pragma once

#include <string>
#include <vector>

#include "run/training_loop.h"
#include "train/observer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct TrainRequest {
  std::string config_path;             // for a new run
  std::string run_dir;                 // where everything is written (created if missing)
  std::vector<std::string> overrides;  // "train.max_steps=100"
  bool resume = false;                 // continue the run in run_dir from its latest checkpoint
  bool measure_peak = true;            // measure the GEMM peak first, for the MFU (training_loop.h): a fraction of a
                                       // second natively, more in the browser, whose worker trains in short slices
};

// Trains the translation model of request's config (TrainSummary, TrainOutcome and request_training_stop, which
// asks it to stop after the current step: training_loop.h).
TrainSummary train(const TrainRequest& request, TrainingObserver& observer);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
