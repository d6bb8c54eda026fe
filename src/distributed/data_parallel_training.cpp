// data_parallel_training.cpp — the training loop's moments that need the other ranks (data_parallel_training.h).
#include "distributed/data_parallel_training.h"

#include <spdlog/spdlog.h>

#include <bit>

#include "tensor/storage.h"
#include "train/clip.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

std::optional<RunPlace> DataParallelTraining::start_together(const std::vector<NamedParameter>& parameters,
                                                             Optimizer& optimizer, Generator& dropout_generator,
                                                             const RunPlace& place, TrainingObserver& observer) {
  if (ranks() == 1) return std::nullopt;
  for (NamedParameter p : parameters) collective::broadcast(p.tensor.data(), p.tensor.numel());
  for (NamedTensor m : optimizer.state_tensors()) collective::broadcast(m.tensor.data(), m.tensor.numel());
  int64_t numbers[5] = {place.step, place.epoch, place.batch_in_epoch, optimizer.steps(),
                        std::bit_cast<int64_t>(place.best_valid_loss)};
  collective::broadcast(numbers, 5);
  std::string generator_state = dropout_generator.state();
  collective::broadcast(generator_state);
  if (is_root()) {
    observer.on_message("data parallel: " + std::to_string(ranks()) + " ranks, each training on 1/" +
                        std::to_string(ranks()) + " of every batch");
    return std::nullopt;
  }
  optimizer.load_state(optimizer.state_tensors(), numbers[3]);   // the moments are in place: t
  dropout_generator = Generator(dropout_seed_for_rank(generator_state, rank()));
  return RunPlace{numbers[0], numbers[1], numbers[2], std::bit_cast<double>(numbers[4])};
}

// train.shard_optimizer (sharded_optimizer.h): once every rank has the whole moments, each keeps its shard of them.
// One process has no one to share them with: it keeps them all, and says so. Otherwise train.allreduce_bucket_mb
// (gradient_buckets.h) chooses between one all-reduce after backward and buckets summed while it runs.
void DataParallelTraining::choose_summing(const TrainConfig& tc, const std::vector<NamedParameter>& parameters,
                                          Optimizer& optimizer, TrainingObserver& observer) {
  const auto say = [&](const std::string& text) {
    if (is_root()) observer.on_message(text);
  };
  if (tc.shard_optimizer && ranks() == 1) {
    say("train.shard_optimizer: one process keeps all of Adam's moments (sharding needs mpirun -np N with N ≥ 2)");
  } else if (tc.shard_optimizer) {
    const int64_t whole_bytes = optimizer.moment_bytes();
    shards_.emplace(parameters, rank(), ranks());
    optimizer.keep_only(shards_->shard());
    trim_storage();   // the whole moments' memory goes back to the system, not to the pool of the step's buffers
    say("ZeRO stage 1: each rank keeps Adam's moments for 1/" + std::to_string(ranks()) + " of the parameters: " +
        std::to_string(optimizer.moment_bytes()) + " bytes on rank 0 instead of " + std::to_string(whole_bytes));
    if (tc.allreduce_bucket_mb > 0) {
      say("train.allreduce_bucket_mb: not used with train.shard_optimizer; the gradients are reduce-scattered "
          "in one call after backward");
    }
  } else if (tc.allreduce_bucket_mb > 0 && ranks() > 1) {
    buckets_.emplace(parameters, tc.allreduce_bucket_mb);
    say(fmt::format("gradients summed in {} buckets of about {} MB while backward runs (train.allreduce_bucket_mb)",
                    buckets_->bucket_count(), tc.allreduce_bucket_mb));
  }
}

void DataParallelTraining::backward(const Tensor& loss, bool last_of_step) {
  if (!buckets_ || !last_of_step) return attnlab::backward(loss, nullptr);   // = loss.backward() (one process)
  buckets_->expect_backward();
  attnlab::backward(loss, [this](const TensorNode& leaf) { buckets_->gradient_final(leaf); });
}

double DataParallelTraining::sum_and_clip(const std::vector<NamedParameter>& parameters, double max_norm) {
  if (shards_) {   // ZeRO stage 1 (sharded_optimizer.h): the same, for this rank's shard of the numbers only
    shards_->reduce_scatter_gradients(parameters);
    return shards_->clip_grad_norm(parameters, max_norm);
  }
  if (buckets_) {
    buckets_->finish();                             // Σ over the ranks: the last buckets, and the wait for all
    if (!told_overlap_ && is_root()) {              // once: how much of the sending could overlap backward
      spdlog::info("gradient buckets: {} of {} started while backward was running", buckets_->started_during_backward(),
                   buckets_->bucket_count());
    }
    told_overlap_ = true;
  } else {
    parallel_.sum_gradients(parameters);            // Σ over the ranks in one all-reduce (one process: nothing)
  }
  return clip_grad_norm(parameters, max_norm);      // clip the global gradient norm
}

void DataParallelTraining::update(const std::vector<NamedParameter>& parameters, Optimizer& optimizer,
                                  double learning_rate) {
  optimizer.step(learning_rate);                                     // Adam(W) (optimizer.h)
  if (shards_) shards_->all_gather_parameters(parameters);           // every shard's new numbers
}

std::optional<Optimizer> DataParallelTraining::gather_optimizer(const Optimizer& optimizer) {
  if (!shards_) return std::nullopt;
  return shards_->gather(optimizer);
}

double DataParallelTraining::communication_seconds() const {
  return parallel_.communication_seconds() + (shards_ ? shards_->communication_seconds() : 0.0) +
         (buckets_ ? buckets_->communication_seconds() : 0.0);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
