// schedule.cpp — the four learning-rate schedules of schedule.h, each one formula, and the position that feeds
// them when the schedule follows the time budget.
#include "train/schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>
#include <string>

#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

const std::vector<std::string>& choice_names(ScheduleKind) {
  static const std::vector<std::string> names{"noam", "inverse_sqrt", "constant", "cosine"};
  return names;
}

const std::vector<std::string>& choice_names(ScheduleClock) {
  static const std::vector<std::string> names{"steps", "time"};
  return names;
}

double schedule_position(const TrainConfig& config, int64_t step, double seconds) {
  const double s = static_cast<double>(step);
  if (config.schedule_by == ScheduleClock::steps || config.max_minutes <= 0) return s;
  const double budget = 60 * config.max_minutes;                           // E
  return std::max(s, static_cast<double>(config.max_steps) * seconds / budget);   // max(s, T · e / E)
}

double learning_rate(const TrainConfig& config, double step, int64_t d_model) {
  if (!(step >= 1)) {
    std::ostringstream asked;                                              // "0", "0.5": as short as it is
    asked << step;
    throw Error("learning_rate: step " + asked.str() + " asked for; steps count from 1");
  }
  if (config.warmup_steps < 0) {
    throw Error("train.warmup_steps must be ≥ 0, got " + std::to_string(config.warmup_steps));
  }
  if (d_model < 1) throw Error("learning_rate: model.d_model must be ≥ 1, got " + std::to_string(d_model));

  const double lr = config.lr;
  const double s = step;
  const double w = static_cast<double>(config.warmup_steps);
  const double d = static_cast<double>(d_model);
  switch (config.schedule) {
    case ScheduleKind::noam:
      // lr · d^−½ · min(s^−½, s · w^−³ᐟ²); the two meet at s = w.
      if (config.warmup_steps == 0) return lr / std::sqrt(d) / std::sqrt(s);
      return lr / std::sqrt(d) * std::min(1 / std::sqrt(s), s * std::pow(w, -1.5));
    case ScheduleKind::inverse_sqrt:
      // lr · min(s / w, √(w / s)); the two meet at s = w, where the rate is lr.
      if (config.warmup_steps == 0) {
        throw Error(
            "train.warmup_steps is 0, but schedule inverse_sqrt peaks at step warmup_steps and needs it "
            "≥ 1 (for no warm-up at all use schedule: constant)");
      }
      return lr * std::min(s / w, std::sqrt(w / s));
    case ScheduleKind::constant:
      // lr · min(1, s / w)
      if (config.warmup_steps == 0) return lr;
      return lr * std::min(1.0, s / w);
    case ScheduleKind::cosine: {
      // s ≤ w: lr · s / w;   w < s < T: lr · ½(1 + cos(π · (s − w)/(T − w)));   s ≥ T: 0
      const double T = static_cast<double>(config.max_steps);
      if (s <= w) return lr * s / w;
      if (s >= T) return 0.0;
      const double progress = (s - w) / (T - w);  // 0 → 1 over the decay
      return lr * 0.5 * (1 + std::cos(std::numbers::pi * progress));
    }
  }
  throw Error("train.schedule: no schedule numbered " + std::to_string(static_cast<int>(config.schedule)));
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
