// test_schedule_by_time.cpp — a schedule that follows the budget (train.schedule_by: time, schedule.h), on a fake
// clock: a slow CPU gets a warm-up of fewer steps and a decay that ends with the time; a fast one keeps the step
// schedule exactly; the training step reads the run's clock it is handed.
#include <doctest/doctest.h>

#include <vector>

#include "autograd/ops.h"
#include "test_support.h"
#include "train/schedule.h"
#include "train/step.h"

using namespace attnlab;

namespace {

// Cosine with 20 warm-up steps over max_steps = 100, and a budget of one minute.
TrainConfig budget_config(ScheduleClock clock) {
  TrainConfig config;
  config.schedule = ScheduleKind::cosine;
  config.lr = 1e-3;
  config.warmup_steps = 20;
  config.max_steps = 100;
  config.max_minutes = 1;
  config.schedule_by = clock;
  return config;
}

// The learning rate of steps 1 … `steps` on a machine where every step takes `seconds_per_step` (the fake clock).
std::vector<double> rates(const TrainConfig& config, double seconds_per_step, int64_t steps) {
  std::vector<double> lr;
  for (int64_t s = 1; s <= steps; ++s) {
    lr.push_back(learning_rate(config, schedule_position(config, s, seconds_per_step * double(s)), 64));
  }
  return lr;
}

}  // namespace

TEST_CASE("schedule_by: time — p = max(s, T · e / E): the step, or the share of the budget spent, further along") {
  const TrainConfig config = budget_config(ScheduleClock::time);
  CHECK(schedule_position(config, 5, 30.0) == 50.0);          // half the minute: half of max_steps
  CHECK(schedule_position(config, 80, 30.0) == 80.0);         // the steps are further along
  CHECK(schedule_position(config, 1, 0.0) == 1.0);
  CHECK(schedule_position(budget_config(ScheduleClock::steps), 5, 30.0) == 5.0);
  TrainConfig no_limit = config;
  no_limit.max_minutes = 0;
  CHECK(schedule_position(no_limit, 5, 30.0) == 5.0);
}

TEST_CASE("a slow CPU (3 s a step, 20 steps in the minute) warms up for 4 steps and ends its decay with the time") {
  const std::vector<double> by_time = rates(budget_config(ScheduleClock::time), 3.0, 20);
  const std::vector<double> by_steps = rates(budget_config(ScheduleClock::steps), 3.0, 20);
  // By steps, the whole minute is spent warming up: the run ends at the peak it has only just reached.
  CHECK(by_steps.back() == doctest::Approx(1e-3));
  CHECK(by_steps[9] < by_steps[10]);
  // By time, step s is at position 5s: warm-up (positions ≤ 20) is steps 1 … 4, then the cosine falls to 0.
  CHECK(by_time[3] == doctest::Approx(1e-3));                 // step 4, position 20: the peak
  for (size_t s = 1; s < 4; ++s) CHECK(by_time[s - 1] < by_time[s]);
  for (size_t s = 4; s < 20; ++s) CHECK(by_time[s] < by_time[s - 1]);
  CHECK(by_time.back() == 0.0);                               // position 100 = max_steps: the decay is over
}

TEST_CASE("a fast CPU (0.1 s a step: 100 steps in 10 s) keeps the step schedule exactly") {
  CHECK(rates(budget_config(ScheduleClock::time), 0.1, 100) == rates(budget_config(ScheduleClock::steps), 0.1, 100));
}

TEST_CASE("the training step places its learning rate with the clock the learner hands it") {
  Generator init(1);
  Seq2Seq model(testing::small_model_config(9, 8, 2, 16, 1), init);
  std::vector<NamedParameter> parameters = model.named_parameters();
  Optimizer optimizer(parameters, OptimizerOptions{});
  Generator dropout(2);
  Ranks one_process;
  for (ScheduleClock clock : {ScheduleClock::steps, ScheduleClock::time}) {
    const TrainConfig config = budget_config(clock);
    Learner learner{model, parameters, optimizer, dropout, one_process, config, 8, {}};
    learner.train_seconds = [] { return 30.0; };              // the fake clock: half the budget spent
    const auto part = [&](ForwardContext&) {
      PartLoss loss;
      loss.loss = sum(mul(parameters[0].tensor, parameters[0].tensor));   // any loss with a gradient
      loss.value = loss.loss.item();
      return loss;
    };
    const StepResult result = training_step(learner, part, 1);
    const double expected = clock == ScheduleClock::time ? learning_rate(config, 50.0, 8) : learning_rate(config, 1.0, 8);
    CHECK(result.learning_rate == expected);
  }
}
