// test_checkpoint_average.cpp — checkpoint averaging (run/checkpoint_average.h): the average of two known
// checkpoints is their mean number for number, it loads as a checkpoint, --last and --best choose the right
// files (a stop checkpoint a few steps after a regular one counting once), and checkpoints of another model are
// refused naming the file.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "model/transformer.h"
#include "run/checkpoint_average.h"
#include "run/config_io.h"
#include "run/run.h"
#include "test_support.h"
#include "train/checkpoint.h"
#include "util/error.h"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

// The config text a checkpoint carries: a word-level model of d_model (its data files are never read here).
std::string config_text(int64_t d_model, const std::string& activation = "relu") {
  RunConfig config = parse_config("data: {train_src: a.src, train_tgt: a.tgt}\ntokenizer: {kind: word}\n"
                                  "model: {d_model: " + std::to_string(d_model) + ", heads: 2, d_ff: 16, "
                                  "encoder_layers: 1, decoder_layers: 1, activation: " + activation + "}\n",
                                  "test");
  return to_yaml(config);
}

ModelConfig model_of(int64_t d_model) { return testing::small_model_config(12, d_model, 2, 16, 1); }

// A checkpoint of a model of d_model initialised from `seed`, written at `step` to `path`; returns the model.
std::unique_ptr<Seq2Seq> write_checkpoint(const std::string& path, uint64_t seed, int64_t step, int64_t d_model = 8,
                                          const std::string& activation = "relu") {
  Generator init(seed);
  auto model = std::make_unique<Seq2Seq>(model_of(d_model), init);
  Optimizer optimizer(model->named_parameters(), OptimizerOptions{});
  CheckpointState state;
  state.step = step;
  state.config_yaml = config_text(d_model, activation);
  save_checkpoint(path, *model, optimizer, state);
  return model;
}

}  // namespace

TEST_CASE("the average of two checkpoints is their mean, number for number, and loads as a checkpoint") {
  const fs::path dir = testing::fresh_directory("test-average", "mean");
  auto a = write_checkpoint((dir / "a.safetensors").string(), 1, 100);
  auto b = write_checkpoint((dir / "b.safetensors").string(), 2, 200);
  average_checkpoints({(dir / "a.safetensors").string(), (dir / "b.safetensors").string()},
                      (dir / "mean.safetensors").string());

  Generator init(3);
  Seq2Seq averaged(model_of(8), init);                        // other weights, all overwritten by the load
  const CheckpointState state = load_checkpoint((dir / "mean.safetensors").string(), averaged, nullptr);
  CHECK(state.step == 200);                                   // the newest file's metadata
  CHECK(state.extra.at("averaged_from") == "a.safetensors, b.safetensors");
  const std::vector<NamedParameter> pa = a->named_parameters(), pb = b->named_parameters(),
                                    mean = averaged.named_parameters();
  size_t numbers = 0, differing_inputs = 0;
  for (size_t p = 0; p < mean.size(); ++p) {
    const std::vector<real>&x = pa[p].tensor.values(), &y = pb[p].tensor.values(), &m = mean[p].tensor.values();
    for (size_t i = 0; i < m.size(); ++i, ++numbers) {
      differing_inputs += x[i] != y[i];
      INFO(mean[p].name, "[", i, "]");
      REQUIRE(m[i] == static_cast<real>((double(x[i]) + double(y[i])) / 2));
    }
  }
  CHECK(numbers == static_cast<size_t>(averaged.parameter_count()));
  CHECK(differing_inputs > numbers / 2);                      // two different models were averaged
}

TEST_CASE("checkpoints of another model shape or another model config are refused, naming the file") {
  const fs::path dir = testing::fresh_directory("test-average", "refuse");
  write_checkpoint((dir / "a.safetensors").string(), 1, 10);
  write_checkpoint((dir / "wide.safetensors").string(), 2, 20, 16);
  write_checkpoint((dir / "gelu.safetensors").string(), 3, 30, 8, "gelu");
  const std::string a = (dir / "a.safetensors").string(), out = (dir / "out.safetensors").string();
  CHECK_THROWS_WITH_AS(average_checkpoints({a, (dir / "wide.safetensors").string()}, out),
                       doctest::Contains("wide.safetensors cannot be averaged with"), Error);
  CHECK_THROWS_WITH_AS(average_checkpoints({a, (dir / "gelu.safetensors").string()}, out),
                       doctest::Contains("configured differently"), Error);
  save_safetensors((dir / "plain.safetensors").string(), {}, {});
  CHECK_THROWS_WITH_AS(average_checkpoints({a, (dir / "plain.safetensors").string()}, out),
                       doctest::Contains("plain.safetensors is not an attnlab checkpoint"), Error);
  CHECK_FALSE(fs::exists(out));                               // nothing written on refusal
}

TEST_CASE("--last takes the newest step checkpoints, --best the ones with the lowest validation loss") {
  const fs::path run = testing::fresh_directory("test-average", "choose");
  fs::create_directories(run / "checkpoints");
  for (int64_t step : {10, 20, 30, 40}) {
    write_checkpoint(CheckpointDirectory((run / "checkpoints").string(), 10).step_path(step), 1, step);
  }
  std::ofstream((run / "metrics.jsonl").string())
      << "{\"type\":\"train\",\"step\":10,\"loss\":9.0}\n"
      << "{\"type\":\"valid\",\"step\":10,\"loss\":3.0}\n{\"type\":\"valid\",\"step\":20,\"loss\":1.0}\n"
      << "{\"type\":\"valid\",\"step\":30,\"loss\":2.5}\n{\"type\":\"valid\",\"step\":35,\"loss\":0.5}\n";
  const auto name = [](const std::string& path) { return fs::path(path).filename().string(); };
  const std::vector<std::string> last = last_checkpoints(run.string(), 2, 10);
  REQUIRE(last.size() == 2);
  CHECK(name(last[0]) == "step-00000030.safetensors");
  CHECK(name(last[1]) == "step-00000040.safetensors");
  const std::vector<std::string> best = best_checkpoints(run.string(), 2);   // step 40 never validated
  REQUIRE(best.size() == 2);
  CHECK(name(best[0]) == "step-00000020.safetensors");
  CHECK(name(best[1]) == "step-00000030.safetensors");
  CHECK_THROWS_WITH_AS(best_checkpoints(run.string(), 4), doctest::Contains("3 of its step checkpoints"), Error);
  CHECK_THROWS_WITH_AS(last_checkpoints(run.string(), 5, 10), doctest::Contains("it has 4 step checkpoints"), Error);
}

TEST_CASE("a stop checkpoint under half a save interval after a regular one counts once in --last, as the newer") {
  const fs::path run = testing::fresh_directory("test-average", "stop");
  fs::create_directories(run / "checkpoints");
  const CheckpointDirectory directory((run / "checkpoints").string(), 10);
  const auto steps_of = [](const std::vector<std::string>& paths) {
    std::vector<int64_t> steps;
    for (const std::string& path : paths) steps.push_back(std::stoll(fs::path(path).stem().string().substr(5)));
    return steps;
  };
  for (int64_t step : {200, 400, 600, 800, 1000, 1005}) write_checkpoint(directory.step_path(step), 1, step);
  // step 1005 (the stop) is 5 steps after 1000: one stretch of training, so 1005 stands for both and the
  // average reaches back to 200 for its fifth.
  CHECK(steps_of(last_checkpoints(run.string(), 5, 200)) == std::vector<int64_t>{200, 400, 600, 800, 1005});
  CHECK(steps_of(last_checkpoints(run.string(), 2, 200)) == std::vector<int64_t>{800, 1005});
  // With nothing older to reach for, fewer are averaged rather than one stretch twice.
  CHECK(steps_of(last_checkpoints(run.string(), 6, 200)) == std::vector<int64_t>{200, 400, 600, 800, 1005});
  // Half an interval or more apart, the stop checkpoint is a stretch of its own.
  CHECK(steps_of(last_checkpoints(run.string(), 2, 10)) == std::vector<int64_t>{1000, 1005});
  CHECK(count_as_one(1000, 1099, 200));
  CHECK_FALSE(count_as_one(1000, 1100, 200));
}
