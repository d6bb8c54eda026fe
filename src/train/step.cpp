// step.cpp — one training step (step.h): zero, forward and backward over the parts, Σ and clip, schedule, Adam.
#include "train/step.h"

#include <chrono>
#include <cmath>

#include "autograd/backward_hook.h"
#include "autograd/ops.h"
#include "train/clip.h"
#include "train/schedule.h"
#include "train/utilisation.h"
#include "util/error.h"
#include "util/profile.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// A NaN or infinite loss or gradient norm would ruin every weight it reaches, so the run stops and says where.
void stop_if_not_finite(double value, const std::string& what, int64_t step, const std::string& last_checkpoint,
                        const std::string& advice = "") {
  if (std::isfinite(value)) return;
  throw Error(what + " became " + std::string(std::isnan(value) ? "NaN" : "infinite") + " at step " +
              std::to_string(step) + "; stopping. The last good checkpoint is " +
              (last_checkpoint.empty() ? std::string("(none yet)") : last_checkpoint) + advice);
}

}  // namespace

// ---- One process's Ranks: the plain calls --------------------------------------------------------------------

void Ranks::backward(const Tensor& loss, bool /*last_of_step*/) { attnlab::backward(loss, nullptr); }

double Ranks::sum_and_clip(const std::vector<NamedParameter>& parameters, double max_norm) {
  return clip_grad_norm(parameters, max_norm);
}

void Ranks::update(const std::vector<NamedParameter>& /*parameters*/, Optimizer& optimizer, double learning_rate) {
  optimizer.step(learning_rate);
}

// ---- The step ------------------------------------------------------------------------------------------------

StepResult accumulate_gradients(Module& model, Generator& dropout_generator, Ranks& ranks, int64_t parts,
                                const PartForward& next_part, int64_t step, const std::string& last_checkpoint) {
  StepResult result;
  auto started = Clock::now();
  {
    profile::Scope timed("zero_grad");
    // Zeroed here, before the forward pass, rather than after the update: every step then starts from zero
    // gradients whatever came before it, the first step of a fresh or a resumed run included.
    model.zero_grad();
  }
  result.update_seconds += seconds_since(started);
  for (int64_t part = 0; part < parts; ++part) {
    started = Clock::now();
    profile::mark();                                           // the model's first op starts here
    ForwardContext ctx{/*training=*/true, &dropout_generator, /*recorder=*/nullptr};
    PartLoss loss = next_part(ctx);                            // forward and loss: [1]
    result.tokens += loss.tokens;
    result.flops += 3 * loss.flops;
    result.forward_seconds += seconds_since(started);
    if (!loss.loss.defined()) continue;                        // fewer sentences than ranks: nothing for this one
    stop_if_not_finite(loss.value, "the training loss", step, last_checkpoint,
                       ". Try a lower train.lr, more train.warmup_steps or train.clip_norm");
    // Backward. Gradients add up over the step's parts; each loss is divided by `accumulate` first, so that their
    // sum is the gradient of the parts' mean loss — and, with several ranks, weighted by this shard's share of the
    // batch's target tokens, so that the ranks' gradients add up to the batch's (distributed/data_parallel.h).
    started = Clock::now();
    const double weight = loss.share / static_cast<double>(parts);
    if (weight != 1) loss.loss = scale(loss.loss, static_cast<real>(weight));
    ranks.backward(loss.loss, part == parts - 1);             // loss.backward()
    loss.loss = Tensor();                                      // the last handle: the graph is freed here
    result.backward_seconds += seconds_since(started);
    result.loss += loss.value * loss.share / static_cast<double>(parts);
  }
  return result;
}

StepResult training_step(Learner& learner, const PartForward& next_part, int64_t step,
                         const std::string& last_checkpoint) {
  const TrainConfig& tc = learner.config;
  StepResult result = accumulate_gradients(learner.model, learner.dropout_generator, learner.ranks, tc.accumulate,
                                           next_part, step, last_checkpoint);
  const auto started = Clock::now();
  {
    profile::Scope timed("clip_grad_norm");
    // Σ over the ranks: the batch's gradient, clipped to the global norm (one process: clipping alone).
    result.grad_norm = learner.ranks.sum_and_clip(learner.parameters, tc.clip_norm);
  }
  result.loss = learner.ranks.sum(result.loss);               // Σ over the ranks: the batch's loss
  stop_if_not_finite(result.grad_norm, "the gradient norm", step, last_checkpoint);
  const double seconds = learner.train_seconds ? learner.train_seconds() : 0.0;
  result.learning_rate = learning_rate(tc, schedule_position(tc, step, seconds), learner.d_model);   // schedule.h
  {
    profile::Scope timed("adam");
    learner.ranks.update(learner.parameters, learner.optimizer, result.learning_rate);   // Adam(W) (optimizer.h)
  }
  result.update_seconds += seconds_since(started);
  return result;
}

PartLoss translation_part(Seq2Seq& model, const Batch& batch, Ranks& ranks, real label_smoothing,
                          ForwardContext& ctx) {
  PartLoss part;
  part.tokens = batch.src_tokens + batch.tgt_tokens;
  part.flops = forward_flops(model.config(), batch.src.shape[0], batch.src.shape[1], batch.tgt_in.shape[1]);
  const Batch& shard = ranks.shard(batch);                   // this rank's rows (one process: the whole batch)
  if (shard.src.shape[0] == 0) return part;                  // fewer sentences than ranks: nothing for this one
  // Label-smoothed cross-entropy of the decoder's predictions for the targets, in one call, without keeping the
  // [B, T, V] logits. Dropout draws its masks from ctx's generator.
  SampledChoices sampled;                                    // what hard attention draws in this forward (if any)
  ctx.sampled = &sampled;
  part.loss = model.loss(shard.src, shard.tgt_in, shard.targets, label_smoothing, ctx);   // [1]
  ctx.sampled = nullptr;
  part.value = part.loss.item();
  // Hard attention samples where it looks: the loss gives its choice no gradient, so it learns from the reward
  // the loss just measured (attention/hard.cpp, nn/sampled.h). Nothing is added for the other kinds.
  if (Tensor reinforce = score_function_loss(sampled); reinforce.defined()) part.loss = add(part.loss, reinforce);
  part.share = ranks.share(shard, batch);                    // n_r / n (1 for one process)
  return part;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
