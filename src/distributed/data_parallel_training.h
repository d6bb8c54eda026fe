// data_parallel_training.h — what the training loop does differently on N ranks, in one place.
//
// The training step (train/step.h) is the one-process step of the paper; under mpirun (data_parallel.h) each
// rank runs it on its 1/N of every batch, and six moments of a run need the other ranks. This class is those six
// (four of them the step's Ranks interface), in the order a run meets them; with one process each is a plain call
// or nothing at all:
//   start_together()    before the first step: rank 0's weights, Adam's moments, step count, place in the
//                       data and best validation loss to every rank (so a run resumes with any N), and a
//                       dropout generator of its own for each other rank
//   choose_summing()    train.shard_optimizer (ZeRO stage 1, sharded_optimizer.h): each rank keeps 1/N of
//                       Adam's moments; and train.allreduce_bucket_mb: the buckets (gradient_buckets.h)
//   backward()          a batch's backward; on the step's last batch, with buckets, the sums start inside it
//   sum_and_clip()      every rank's gradients summed (one all-reduce, the buckets' last ones, or ZeRO's
//                       reduce-scatter) and clipped to train.clip_norm; one process: clipping alone
//   update()            Adam(W), and with ZeRO the all-gather of every rank's new numbers
//   gather_optimizer()  for a checkpoint: with ZeRO, the whole of Adam's moments put together on rank 0
// Rank 0 alone logs, validates and writes (run/trainer.cpp asks is_root()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "distributed/data_parallel.h"
#include "distributed/gradient_buckets.h"
#include "distributed/sharded_optimizer.h"
#include "tensor/random.h"
#include "train/config.h"
#include "train/observer.h"
#include "train/optimizer.h"
#include "train/step.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Where a run is, as start_together() hands rank 0's to the others.
struct RunPlace {
  int64_t step = 0;                  // optimizer steps taken
  int64_t epoch = 0, batch_in_epoch = 0;
  double best_valid_loss = 0;
};

// The N-rank Ranks of the training step (train/step.h), and the moments of a run around it.
class DataParallelTraining : public Ranks {
 public:
  int rank() const { return parallel_.rank(); }
  int ranks() const { return parallel_.ranks(); }
  bool is_root() const { return parallel_.is_root(); }
  const Batch& shard(const Batch& global) override { return parallel_.shard(global); }   // data_parallel.h
  double share(const Batch& shard, const Batch& global) const override {                 // w_r = n_r / n
    return DataParallel::shard_weight(shard, global);
  }
  double sum(double value) override {                     // Σ over the ranks (one process: the value)
    collective::sum_in_place_double(&value, 1);
    return value;
  }

  // Every rank takes rank 0's weights, moments and place. Returns rank 0's place on the other ranks (for the
  // caller to move to), nothing on rank 0 or in one process.
  std::optional<RunPlace> start_together(const std::vector<NamedParameter>& parameters, Optimizer& optimizer,
                                         Generator& dropout_generator, const RunPlace& place,
                                         TrainingObserver& observer);
  // train.shard_optimizer and train.allreduce_bucket_mb: how the gradients will be summed (logged on rank 0).
  void choose_summing(const TrainConfig& tc, const std::vector<NamedParameter>& parameters, Optimizer& optimizer,
                      TrainingObserver& observer);

  void backward(const Tensor& loss, bool last_of_step) override;   // last_of_step: the step's last batch
  // After the step's batches, on every rank (also one whose shards were empty): ‖g‖ of the whole batch's
  // gradient, before clipping it to max_norm (0 = no clipping).
  double sum_and_clip(const std::vector<NamedParameter>& parameters, double max_norm) override;
  void update(const std::vector<NamedParameter>& parameters, Optimizer& optimizer, double learning_rate) override;

  // What a checkpoint saves of the optimizer: the learner's own (nothing returned), or, with ZeRO, a whole one
  // put together on rank 0 from every rank's shard — which every rank must take part in, writing or not.
  std::optional<Optimizer> gather_optimizer(const Optimizer& optimizer);

  // Seconds spent summing, gathering and waiting for the other ranks so far (for the progress line).
  double communication_seconds() const;

 private:
  DataParallel parallel_;                     // this rank's place in the job (one process: 0 of 1)
  std::optional<OptimizerShards> shards_;     // ZeRO stage 1, or none
  std::optional<GradientBuckets> buckets_;    // train.allreduce_bucket_mb > 0 on N ≥ 2 ranks, or none
  bool told_overlap_ = false;                 // the first step's buckets have been logged
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
