// sharded_optimizer.h — ZeRO stage 1: the ranks share Adam's moments out among them instead of each keeping all.
//
// Rajbhandari, Rasley, Ruwase & He 2020, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
// stage 1, P_os: optimizer state partitioned. In plain data parallelism (data_parallel.h) every rank holds the
// whole of Adam's state and makes the very same update as every other rank: N copies of the same work and the
// same memory. Adam keeps two numbers, m and v, for every number of the model (optimizer.h), so with Ψ parameters
// in float32
//     Adam's moments per rank, plain:     2 · Ψ · 4 bytes
//     Adam's moments per rank, ZeRO-1:    2 · Ψ · 4 / N bytes
// ZeRO-1 lays the parameters end to end (flat_parameters.h), pads them with zeros to N·s numbers (s = ⌈Ψ/N⌉) and
// cuts them into N shards of s: rank r owns the numbers [r·s, (r+1)·s) and keeps their moments alone. One step,
// on every rank r (trainer.cpp's train_step):
//   reduce-scatter   every rank's gradient, laid end to end; rank r receives the sum over the ranks of shard r
//                    alone (MPI_Reduce_scatter_block): the whole batch's gradient, for its own numbers
//   ‖g‖              clipping needs the norm of the whole gradient: each rank sums the squares of its shard, and an
//                    all-reduce of that one number adds the shards' sums up to ‖g‖² (clip.h)
//   clip, Adam       on shard r only: its gradient scaled when ‖g‖ > train.clip_norm, then m, v and the parameters
//                    (optimizer.h, Optimizer::keep_only)
//   all-gather       every rank sends its shard's new parameters and receives everyone else's (MPI_Allgather):
//                    every rank holds the whole, identical model again for the next forward pass
// The traffic is that of plain data parallelism: a ring all-reduce *is* a reduce-scatter followed by an all-gather,
// 2·(N−1)/N of the gradient's bytes per rank; ZeRO does the update in between, on 1/N of the numbers. Every number
// gets the same arithmetic as without sharding (the sum of the ranks' gradients, then Adam's lines), so the two
// differ only in the order in which ‖g‖²'s squares are added, in double.
//
// What stays whole on every rank: the parameters and the gradients (ZeRO's stages 2 and 3 shard those too), and
// for a moment at the start the moments themselves (zeros, or rank 0's from a checkpoint, broadcast), before each
// rank keeps its shard. Checkpoints stay the ordinary ones: before rank 0 writes one, every rank sends it its
// shard of the moments (gather), so a sharded run resumes without sharding, on another N or in one process, and
// the other way round.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "nn/module.h"
#include "train/flat_parameters.h"
#include "train/optimizer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

class OptimizerShards {
 public:
  // Shard `rank` of `ranks` over `parameters` (their shapes do not change afterwards).
  OptimizerShards(const std::vector<NamedParameter>& parameters, int rank, int ranks);

  FlatRange shard() const { return shard_; }   // this rank's numbers: [min(r·s, Ψ), min((r + 1)·s, Ψ))

  // The step's three collectives, in its order (every rank calls each):
  // 1. Each parameter's gradient, at this rank's numbers ← the sum over the ranks (elsewhere it keeps this rank's
  //    own, unsummed: no one reads it). As in DataParallel::sum_gradients, a parameter that no rank has a gradient
  //    for keeps none, and one that only some ranks have counts as zeros on the others.
  void reduce_scatter_gradients(const std::vector<NamedParameter>& parameters);
  // 2. ‖g‖ of the whole gradient, from every shard's Σ g²; this rank's shard clipped to max_norm (clip.h).
  double clip_grad_norm(const std::vector<NamedParameter>& parameters, double max_norm);
  // 3. After Adam has updated this rank's numbers (Optimizer::keep_only(shard())): every rank's new numbers to all.
  void all_gather_parameters(const std::vector<NamedParameter>& parameters);

  // For a checkpoint: an Optimizer that owns everything, put together on rank 0 from every rank's shard of the
  // moments, with `shard`'s step count. Every rank must call it; the others get nothing.
  std::optional<Optimizer> gather(const Optimizer& shard);

  // Seconds spent in the collectives above so far (with the copies around them and the wait for the slowest rank).
  double communication_seconds() const { return communication_seconds_; }

 private:
  // Copies this rank's numbers, one piece per part of shard_parts_ (in flat order), into mine_, then zeros (the
  // padding).
  void pack(const std::vector<const real*>& pieces);

  int rank_;                                    // this process, 0 … N − 1
  int64_t s_;                                   // numbers per shard, ⌈Ψ/N⌉
  FlatRange shard_;
  std::vector<ParameterPart> shard_parts_;      // parts_in(parameters, shard_)
  std::vector<ParameterPart> all_parts_;        // parts_in(parameters, everything)
  std::vector<real> all_;                       // N·s: every shard end to end (gradients, then parameters)
  std::vector<real> mine_;                      // s: this rank's shard of it
  std::vector<real> has_gradient_;              // one per parameter: how many ranks have a gradient for it
  double communication_seconds_ = 0;
};

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
