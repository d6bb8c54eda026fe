// sharded_optimizer.cpp — ZeRO stage 1's step and gather (the idea and the order of the step: sharded_optimizer.h).
#include "distributed/sharded_optimizer.h"

#include <algorithm>
#include <cmath>

#include "distributed/data_parallel.h"
#include "train/clip.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

OptimizerShards::OptimizerShards(const std::vector<NamedParameter>& parameters, int rank, int ranks)
    : rank_(rank) {
  const int64_t psi = flat_size(parameters);                                 // Ψ
  s_ = (psi + ranks - 1) / ranks;                                            // s = ⌈Ψ/N⌉
  shard_ = {std::min(rank * s_, psi), std::min((rank + 1) * s_, psi)};       // the last may be short, or empty
  shard_parts_ = parts_in(parameters, shard_);
  all_parts_ = parts_in(parameters, FlatRange{});
  all_.assign(static_cast<size_t>(ranks * s_), real(0));                     // [N·s]: Ψ numbers, then padding
  mine_.assign(static_cast<size_t>(s_), real(0));                            // [s]
  has_gradient_.assign(parameters.size(), real(0));
}

void OptimizerShards::pack(const std::vector<const real*>& pieces) {
  if (pieces.size() != shard_parts_.size()) {
    throw Error("ZeRO: " + std::to_string(pieces.size()) + " pieces for a shard of " +
                std::to_string(shard_parts_.size()) + " parameter parts");
  }
  real* at = mine_.data();
  for (size_t k = 0; k < pieces.size(); ++k) {
    at = std::copy_n(pieces[k], shard_parts_[k].to - shard_parts_[k].from, at);
  }
  std::fill(at, mine_.data() + s_, real(0));                                 // the padding
}

void OptimizerShards::reduce_scatter_gradients(const std::vector<NamedParameter>& parameters) {
  Timed timed(communication_seconds_);
  // Every gradient laid end to end (zeros where this rank has none), and which parameters have one.
  for (const ParameterPart& part : all_parts_) {
    const Tensor& tensor = parameters[part.parameter].tensor;
    real* at = all_.data() + part.flat_begin;
    if (tensor.has_grad()) std::copy_n(tensor.grad_values().data(), tensor.numel(), at);
    else std::fill_n(at, tensor.numel(), real(0));
    has_gradient_[part.parameter] = tensor.has_grad() ? 1 : 0;
  }
  collective::sum_in_place(has_gradient_.data(), static_cast<int64_t>(has_gradient_.size()));   // ranks with one
  collective::reduce_scatter_sum(all_.data(), mine_.data(), s_);             // mine ← Σ over the ranks of shard r
  const real* at = mine_.data();
  for (const ParameterPart& part : shard_parts_) {
    const Tensor& tensor = parameters[part.parameter].tensor;
    if (has_gradient_[part.parameter] > 0) std::copy_n(at, part.to - part.from, tensor.grad() + part.from);
    at += part.to - part.from;
  }
}

double OptimizerShards::clip_grad_norm(const std::vector<NamedParameter>& parameters, double max_norm) {
  double squares = sum_of_squares(parameters, shard_);                       // Σ g² over shard r
  {
    Timed timed(communication_seconds_);
    collective::sum_in_place_double(&squares, 1);                            // Σ over the shards: ‖g‖²
  }
  const double norm = std::sqrt(squares);
  clip_to_norm(parameters, norm, max_norm, shard_);
  return norm;
}

void OptimizerShards::all_gather_parameters(const std::vector<NamedParameter>& parameters) {
  Timed timed(communication_seconds_);
  std::vector<const real*> pieces;
  for (const ParameterPart& part : shard_parts_) pieces.push_back(parameters[part.parameter].tensor.data() + part.from);
  pack(pieces);                                                              // shard r's new numbers
  collective::all_gather(mine_.data(), all_.data(), s_);                     // every shard, end to end
  for (const ParameterPart& part : all_parts_) {
    Tensor parameter = parameters[part.parameter].tensor;                    // a handle: the model's own numbers
    std::copy_n(all_.data() + part.flat_begin, part.to - part.from, parameter.data() + part.from);
  }
}

std::optional<Optimizer> OptimizerShards::gather(const Optimizer& shard) {
  Timed timed(communication_seconds_);
  std::optional<Optimizer> whole;
  if (rank_ == 0) whole.emplace(shard.parameters(), shard.options());        // zeros, to be filled
  // state_tensors(): every m, then every v — the shard's pieces, or the whole optimizer's whole moments, each
  // in parameter order, which is the flat order.
  const std::vector<NamedTensor> mine = shard.state_tensors();
  const std::vector<NamedTensor> all = whole ? whole->state_tensors() : std::vector<NamedTensor>{};
  const size_t mine_per_moment = mine.size() / 2, all_per_moment = all.size() / 2;
  for (size_t moment = 0; moment < 2; ++moment) {                            // m, then v
    std::vector<const real*> pieces;
    for (size_t k = 0; k < mine_per_moment; ++k) pieces.push_back(mine[moment * mine_per_moment + k].tensor.data());
    pack(pieces);
    collective::gather_to_root(mine_.data(), all_.data(), s_);
    const real* at = all_.data();
    for (size_t k = 0; k < all_per_moment; ++k) {                            // rank 0: Ψ numbers, in flat order
      Tensor whole_moment = all[moment * all_per_moment + k].tensor;        // a handle onto the live moment
      std::copy_n(at, whole_moment.numel(), whole_moment.data());
      at += whole_moment.numel();
    }
  }
  if (whole) whole->load_state(whole->state_tensors(), shard.steps());       // the moments are in place: t
  return whole;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
