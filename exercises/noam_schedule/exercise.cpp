// Exercise noam_schedule (chapter train): the learning rate of "Attention Is All You Need" (§5.3).
//
// A fresh Transformer has noisy moment estimates in Adam and large gradients near its output: a full-size step
// at the start can throw it where it never recovers. So the rate grows linearly for `warmup` steps, then falls
// as 1/√step:
//
//   lr(s) = factor · d_model^−½ · min(s^−½, s · warmup^−³ᐟ²)          s = 1, 2, 3, …  (the first step is 1)
//
// The two terms of the min meet at s = warmup, the peak: factor · (d_model · warmup)^−½. Before it the second
// term is the smaller (s · warmup^−³ᐟ² grows), after it the first (s^−½ falls). The paper: factor 1,
// d_model 512, warmup 4000, a peak of 7·10⁻⁴. warmup = 0 means no warm-up: lr = factor · (d_model · s)^−½.
//
// Everything in double: std::pow(x, -1.5), std::sqrt, std::min. Mind the integer arguments: convert them to
// double before you divide.
//
// Check:  tools/exercise.sh noam_schedule
//   compares your rate with the library's learning_rate() under schedule: noam (src/train/schedule.h), step by
//   step, for a small model first and then the paper's settings.
#include <algorithm>
#include <cmath>

#include "exercise.h"

namespace attnlab::exercises {

double noam_learning_rate(double factor, int64_t d_model, int64_t warmup, int64_t step) {
  // TODO: the formula above.
  return 0;
}

}  // namespace attnlab::exercises
