// schedule.h — the learning rate at each step: warm up, then decay.
//
// A freshly initialised Transformer has tiny, noisy moment estimates (optimizer.h) and post-LN layers whose
// gradients are large near the output; a full-size step at the start can throw it into a region it never
// leaves. So the rate starts small, grows for `warmup` steps, and then falls. With s = step (1, 2, …),
// w = train.warmup_steps, lr = train.lr, d = model.d_model and T = train.max_steps:
//
//   noam          lr · d^−½ · min(s^−½, s · w^−³ᐟ²)              (Vaswani et al. 2017, §5.3, with lr = 1)
//                 linear growth for w steps, peak lr · (d·w)^−½ at s = w, then ∝ 1/√s. Here lr is a
//                 multiplier, not the peak: lr = 1, d = 512, w = 4000 peaks at 7·10⁻⁴. (w = 0: no warm-up.)
//   inverse_sqrt  lr · min(s / w, √(w / s))                       (fairseq's inverse_sqrt)
//                 the same shape with the peak at exactly lr; needs w ≥ 1.
//   constant      lr · min(1, s / w)                              linear warm-up, then constant (w = 0: none)
//   cosine        lr · s / w                          for s ≤ w   (Loshchilov & Hutter 2017, SGDR,
//                 lr · ½ · (1 + cos(π · (s − w) / (T − w)))  for w < s < T     without restarts)
//                 0                                   for s ≥ T
//
// The Annotated Transformer draws the noam curve for three (d, w) pairs; test_optim.cpp checks points on each.
//
// A schedule that follows the budget (train.schedule_by: time). A run ends at max_steps or after max_minutes,
// whichever comes first; the formulas above are written in steps, so on a CPU slower than the config was tuned
// on, the time limit cuts the run off early: while still warming up, or long before a cosine decay has ended.
// With schedule_by: time the formulas are fed, instead of the step s, the position
//
//   p = max(s, T · e / E)          e = training seconds so far, E = 60 · max_minutes, T = max_steps
//
// i.e. the step on whichever clock is further along. Where T steps take less than E (a fast CPU) p = s and
// nothing changes; where they take longer, time moves the schedule: warm-up ends when the share w / T of the
// minutes is spent (fewer steps on a slower CPU), and p reaches T — the end of cosine's decay, noam's rate at T —
// exactly when the time runs out. The curve keeps its shape and its peak; it is drawn over the budget.
#pragma once

#include <cstdint>

#include "train/config.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// The learning rate for optimizer step `step` (≥ 1: the first step is step 1) under config.schedule.
// Throws attnlab::Error naming the key for an unknown schedule, step < 1, warmup_steps < 0, d_model < 1, or
// inverse_sqrt with warmup_steps 0.
// `step` may be a position between steps (p above): the formulas are the same for any real s ≥ 1.
double learning_rate(const TrainConfig& config, double step, int64_t d_model);

// p, the position on the schedule for optimizer step `step` (≥ 1) when `seconds` of training have passed:
// `step` under schedule_by: steps (or without a time limit), max(step, max_steps · seconds / (60 · max_minutes))
// under schedule_by: time.
double schedule_position(const TrainConfig& config, int64_t step, double seconds);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
