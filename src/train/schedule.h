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
#pragma once

#include <cstdint>

#include "train/config.h"

namespace attnlab::inline ATTNLAB_PRECISION {

// The learning rate for optimizer step `step` (≥ 1: the first step is step 1) under config.schedule.
// Throws attnlab::Error naming the key for an unknown schedule, step < 1, warmup_steps < 0, d_model < 1, or
// inverse_sqrt with warmup_steps 0.
double learning_rate(const TrainConfig& config, int64_t step, int64_t d_model);

}  // namespace attnlab::inline ATTNLAB_PRECISION
