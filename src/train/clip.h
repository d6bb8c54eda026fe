// clip.h — gradient clipping by the global norm: one bad batch must not undo a thousand good steps.
//
// Treat every gradient of every parameter as one long vector g and measure its length,
//     ‖g‖ = √(Σ over all parameters, Σ over their numbers, g²)
// If ‖g‖ exceeds max_norm, scale every gradient by the same factor so the whole vector has length max_norm
// (give or take 10⁻⁶):
//     g ← g · max_norm / (‖g‖ + 10⁻⁶)
// The direction is kept; only the size changes. This is torch.nn.utils.clip_grad_norm_ (Pascanu et al. 2013);
// clipping each parameter separately would change the direction. The norm is summed in double: a model has
// millions of squares to add, and float32 would lose the small ones.
#pragma once

#include <vector>

#include "nn/module.h"
#include "train/flat_parameters.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Returns ‖g‖ before clipping, and clips when it is greater than max_norm. max_norm ≤ 0 means no clipping
// (the norm is still returned, for the log). Parameters without a gradient count as zero.
// A non-finite norm (inf or NaN: the loss blew up) is returned as it is and the gradients are left alone;
// the trainer decides what to do (attnlab's stops and says so).
double clip_grad_norm(const std::vector<NamedParameter>& parameters, double max_norm);

// The two halves of clip_grad_norm, for when the gradients are spread over several processes (ZeRO,
// sharded_optimizer.h): each sums the squares of its own stretch `range` of the gradients laid end to end
// (flat_parameters.h), the processes add their sums up to ‖g‖², and each scales its own stretch.
//   sum_of_squares   Σ g² over the numbers in `range`, in double, with the same bits on any number of threads
//   clip_to_norm     when ‖g‖ = `norm` is finite and exceeds max_norm > 0: g ← g · max_norm / (‖g‖ + 10⁻⁶) in `range`
double sum_of_squares(const std::vector<NamedParameter>& parameters, FlatRange range = {});
void clip_to_norm(const std::vector<NamedParameter>& parameters, double norm, double max_norm, FlatRange range = {});

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
