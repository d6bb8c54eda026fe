// step.h — one training step, the only one: `attnlab train`, `bench`, `gradvar` and the cloze readers all run it.
//
// One optimizer step, in the order of the paper (§5.3 optimizer and schedule, §5.4 dropout and label smoothing):
//   zero the gradients                          (first, not last: every step starts from zero gradients)
//   for each of the step's `accumulate` parts (batches):
//       loss = the part's loss                  forward; for a translation batch CE_ls(model(src, tgt_in), targets)
//                                               plus hard attention's score-function term (translation_part below)
//       (loss · share / accumulate).backward()  gradients add up across the parts
//   Σ over the ranks, clip the global norm      ‖g‖ ≤ train.clip_norm (clip.h)
//   lr = schedule(step);  Adam(W) update        (schedule.h, optimizer.h; with schedule_by: time the position
//                                               on the schedule comes from the step and Learner::train_seconds)
// `share` is this process's share of a batch's target tokens: 1 for one process; under mpirun each rank trains on
// its rows of every batch (distributed/data_parallel.h says why the weighted sum is the whole batch's gradient).
//
// What differs between one process and N is behind the small Ranks interface below; the one-process version is
// Ranks itself, distributed/data_parallel_training.h is the N-rank one. The forward pass is the caller's: a
// PartForward gives the loss of the step's next part, so the same step trains the translation model and the cloze
// readers, and bench times exactly the step that train runs (tests/lab/test_bench.cpp proves it on hard attention
// with train.accumulate: 2).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "data/batch.h"
#include "model/transformer.h"
#include "nn/context.h"
#include "nn/module.h"
#include "train/config.h"
#include "train/optimizer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// What a step does differently on N ranks: each is a plain call (or nothing) for one process.
class Ranks {
 public:
  virtual ~Ranks() = default;
  // This rank's rows of a batch (one process: the batch itself), and its share of the batch's target tokens.
  virtual const Batch& shard(const Batch& global) { return global; }
  virtual double share(const Batch& /*shard*/, const Batch& /*global*/) const { return 1; }
  // loss.backward(); `last_of_step`: the step's last part (where N ranks may start summing during backward).
  virtual void backward(const Tensor& loss, bool last_of_step);
  // ‖g‖ before clipping the gradients to max_norm (0: no clipping); N ranks first sum them.
  virtual double sum_and_clip(const std::vector<NamedParameter>& parameters, double max_norm);
  virtual double sum(double value) { return value; }   // Σ over the ranks of a number (one process: itself)
  // Adam(W) with this learning rate; N ranks with a sharded optimizer then gather every rank's new numbers.
  virtual void update(const std::vector<NamedParameter>& parameters, Optimizer& optimizer, double learning_rate);
};

// Everything a step changes or reads, held by the caller.
struct Learner {
  Module& model;                                  // a Seq2Seq, or a cloze reader
  const std::vector<NamedParameter>& parameters;  // every weight, named as in a PyTorch state dict
  Optimizer& optimizer;                           // Adam(W) and its moments
  Generator& dropout_generator;                   // draws every dropout mask
  Ranks& ranks;                                   // one process: a plain Ranks
  const TrainConfig& config;                      // accumulate, clip_norm, the schedule
  int64_t d_model = 0;                            // for the noam schedule
  std::function<double()> train_seconds;          // train.schedule_by: time — the run's training seconds so far
                                                  // (schedule.h); empty: the schedule follows the steps alone
};

// The loss of one part of a step, as the caller's forward pass made it.
struct PartLoss {
  Tensor loss;             // [1]: what backward differentiates (undefined: this rank has no rows of the part)
  double value = 0;        // the loss reported and checked for NaN (for translation: without the REINFORCE term)
  double share = 1;        // this rank's share of the part's target tokens
  int64_t tokens = 0;      // source + target tokens of the whole part, for tokens per second
  double flops = 0;        // the whole part's forward matrix FLOPs (train/utilisation.h), for the MFU; 0: not counted
};
using PartForward = std::function<PartLoss(ForwardContext& ctx)>;

struct StepResult {
  double loss = 0;             // mean training loss per target token over the step's parts (label-smoothed)
  double grad_norm = 0;        // ‖g‖, before clipping
  double learning_rate = 0;
  int64_t tokens = 0;          // source + target tokens of the step's parts
  double flops = 0;            // 3 · the parts' forward FLOPs: forward, and backward's two products per product
  double forward_seconds = 0;  // where the step's time went (bench reports medians of these)
  double backward_seconds = 0;
  double update_seconds = 0;   // zeroing, summing and clipping, Adam
};

// The step's first half: zero the gradients, then for each of `parts` parts (train.accumulate) forward, loss,
// backward.
// The gradients are then those of the parts' mean loss (before summing over the ranks and clipping): what
// `attnlab gradvar` measures. `step` (1, 2, …) and `last_checkpoint` only name where a NaN loss stopped the run.
StepResult accumulate_gradients(Module& model, Generator& dropout_generator, Ranks& ranks, int64_t parts,
                                const PartForward& next_part, int64_t step, const std::string& last_checkpoint = "");

// The whole step number `step`: accumulate_gradients, then Σ over the ranks and clip, the schedule, Adam(W).
// Throws attnlab::Error naming the step and `last_checkpoint` when the loss or the gradient norm is not finite.
StepResult training_step(Learner& learner, const PartForward& next_part, int64_t step,
                         const std::string& last_checkpoint = "");

// The part for a translation batch: this rank's rows of `batch`, the label-smoothed cross-entropy of the decoder's
// predictions (without keeping the [B, T, V] logits), plus — for hard attention, which samples where it looks and
// so gets no gradient from the loss — the score-function (REINFORCE) term that teaches it from the reward the
// loss just measured (attention/hard.cpp). Nothing is added for the other kinds.
PartLoss translation_part(Seq2Seq& model, const Batch& batch, Ranks& ranks, real label_smoothing,
                          ForwardContext& ctx);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
