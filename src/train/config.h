// config.h — training's own section of a run's config (train:). run/config.h composes it with the other
// chapters' sections into a run's whole configuration.
//
// Every key, its default and its meaning are documented in configs/README.md; run/config_keys.cpp lists them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/real.h"  // ATTNLAB_PRECISION: the namespace of this build's precision
#include "util/choice.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// train.optimizer (optimizer.h): Adam, or AdamW with its decoupled weight decay.
enum class OptimizerKind { adam, adamw };
// train.schedule: the learning rate against the step (schedule.h has each one's formula).
enum class ScheduleKind { noam, inverse_sqrt, constant, cosine };
// train.schedule_by: what moves the schedule along (schedule.h) — the steps taken, or the steps and the time
// spent of train.max_minutes, whichever is further along.
enum class ScheduleClock { steps, time };
// The config's words for each (util/choice.h), in schedule.cpp and optimizer.cpp.
const std::vector<std::string>& choice_names(OptimizerKind);  // "adam", "adamw"
const std::vector<std::string>& choice_names(ScheduleKind);   // "noam", "inverse_sqrt", "constant", "cosine"
const std::vector<std::string>& choice_names(ScheduleClock);  // "steps", "time"

struct TrainConfig {
  uint64_t seed = 1;
  int64_t threads = 0;            // 0 = the machine's cores
  int64_t batch_tokens = 4096;    // source + target tokens per batch (padding included), approximately
  int64_t max_steps = 10000;      // optimizer steps
  double max_minutes = 0;         // stop after this much wall time (0 = no limit)
  OptimizerKind optimizer = OptimizerKind::adam;
  double lr = 1.0;                // peak learning rate, or the noam multiplier
  double beta1 = 0.9, beta2 = 0.98, eps = 1e-9;
  double weight_decay = 0.0;      // adamw only
  ScheduleKind schedule = ScheduleKind::noam;
  int64_t warmup_steps = 4000;
  ScheduleClock schedule_by = ScheduleClock::steps;   // time: the schedule follows train.max_minutes too
  double label_smoothing = 0.1;
  double clip_norm = 1.0;         // clip the global gradient norm to this (0 = off)
  int64_t accumulate = 1;         // batches per optimizer step
  int64_t valid_every = 500;      // steps between validations
  int64_t valid_samples = 200;    // validation sentences translated greedily for exact match / BLEU
  int64_t checkpoint_every = 500; // steps between checkpoints
  int64_t keep_last = 3;          // checkpoints kept besides the best
  int64_t average_last = 0;       // at the end, average the last N step checkpoints (0 = don't)
  int64_t log_every = 50;         // steps between log lines when not on a terminal
  bool shard_optimizer = false;   // ZeRO stage 1 under mpirun: each rank keeps 1/N of Adam's moments
  double allreduce_bucket_mb = 0; // under mpirun: gradients summed in buckets of this many MB while backward
                                  // runs (0 = in one all-reduce after backward; gradient_buckets.h)
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
