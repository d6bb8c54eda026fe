// test_training_loop.cpp — the training loop (src/run/training_loop.h) on a task that only counts: how many steps
// it takes, when validation and checkpoints fall due, when it stops, and the train lines metrics.jsonl gets.
// (test_train.cpp runs it on the translation model, test_cloze.cpp on a cloze reader.)
#include <doctest/doctest.h>

#include <csignal>
#include <fstream>
#include <string>
#include <vector>

#include "run/training_loop.h"
#include "test_support.h"

using namespace attnlab;

namespace {

// A task whose step is a number: loss = 1 / step. It notes what the loop asks of it.
class CountingTask : public TrainingTask {
 public:
  StepResult step(int64_t step) override {
    steps.push_back(step);
    if (step == stop_at) request_training_stop(SIGINT);   // as Ctrl-C during this step
    StepResult result;
    result.loss = 1.0 / static_cast<double>(step);
    result.tokens = 10;
    return result;
  }
  int64_t epoch() const override { return static_cast<int64_t>(steps.size()) / 4; }
  void validate_and_checkpoint(int64_t step, const Due& due) override {
    if (due.validate) validated.push_back(step);
    if (due.checkpoint) checkpointed.push_back(step);
  }

  int64_t stop_at = -1;
  std::vector<int64_t> steps, validated, checkpointed;
};

TrainConfig loop_config() {
  TrainConfig tc;
  tc.max_steps = 12;
  tc.valid_every = 5;
  tc.checkpoint_every = 4;
  tc.log_every = 3;
  tc.max_minutes = 0;
  return tc;
}

// The lines of RUN/metrics.jsonl after a loop of `task` to loop_config()'s max_steps.
std::vector<std::string> metrics_lines(CountingTask& task, const std::string& name) {
  reset_training_stop();
  const std::string dir = testing::fresh_directory("test-training-loop", name).string();
  {
    TrainingRecords records(dir, /*writes=*/true);
    TrainingObserver quiet;
    int64_t step = 0;
    train_until_stopped(task, loop_config(), step, records, quiet);
  }
  std::ifstream metrics(dir + "/metrics.jsonl");
  std::vector<std::string> lines;
  for (std::string line; std::getline(metrics, line);) lines.push_back(line);
  return lines;
}

// The cloze readers' lines have never carried tokens_per_s.
class NoTokensTask : public CountingTask {
 public:
  bool logs_tokens_per_second() const override { return false; }
};

}  // namespace

TEST_CASE("the loop takes steps until max_steps, validating every valid_every and checkpointing every "
          "checkpoint_every steps") {
  reset_training_stop();
  const std::string dir = testing::fresh_directory("test-training-loop", "cadence").string();
  CountingTask task;
  TrainingRecords records(dir, /*writes=*/false);
  TrainingObserver quiet;
  int64_t step = 0;
  CHECK(train_until_stopped(task, loop_config(), step, records, quiet) == TrainOutcome::finished);
  CHECK(step == 12);
  CHECK(task.steps == std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  CHECK(task.validated == std::vector<int64_t>{5, 10});
  CHECK(task.checkpointed == std::vector<int64_t>{4, 8, 12});
  CHECK(records.summary.losses.size() == 12);
  CHECK(records.summary.losses[3] == doctest::Approx(0.25));
  CHECK(records.tokens_seen == 120);
}

TEST_CASE("a resumed loop goes on from the step it is given; a stop request ends it after the current step") {
  reset_training_stop();
  const std::string dir = testing::fresh_directory("test-training-loop", "stop").string();
  CountingTask task;
  task.stop_at = 7;
  TrainingRecords records(dir, /*writes=*/false);
  TrainingObserver quiet;
  int64_t step = 4;                                          // as a run resumed from step 4's checkpoint
  CHECK(train_until_stopped(task, loop_config(), step, records, quiet) == TrainOutcome::interrupted);
  CHECK(step == 7);
  CHECK(task.steps == std::vector<int64_t>{5, 6, 7});
  reset_training_stop();                                     // forgotten: the next loop runs to max_steps
  CHECK(train_until_stopped(task, loop_config(), step, records, quiet) == TrainOutcome::finished);
  CHECK(step == 12);
}

TEST_CASE("metrics.jsonl gets a train line every log_every steps, with tokens_per_s unless the task says not") {
  CountingTask task;
  const std::vector<std::string> lines = metrics_lines(task, "metrics");
  REQUIRE(lines.size() == 4);                                // steps 3, 6, 9 and 12
  CHECK(lines[0].find("\"step\":3") != std::string::npos);
  CHECK(lines[0].find("\"type\":\"train\"") != std::string::npos);
  CHECK(lines[0].find("\"tokens_per_s\"") != std::string::npos);
  CHECK(lines[3].find("\"epoch\":3") != std::string::npos); // 12 steps taken, 4 a (pretend) epoch
  NoTokensTask cloze_like;
  const std::vector<std::string> cloze_lines = metrics_lines(cloze_like, "metrics-no-tokens");
  REQUIRE(cloze_lines.size() == 4);
  CHECK(cloze_lines[0].find("\"tokens_per_s\"") == std::string::npos);
  CHECK(cloze_lines[0].find("\"loss\"") != std::string::npos);
}
