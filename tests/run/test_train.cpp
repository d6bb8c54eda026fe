// test_train.cpp — the training loop keeps its promises: a stopped and resumed run gives exactly the losses of
// one never stopped, Ctrl-C saves before stopping (a stop checkpoint beside a regular one counting once in the
// average and in keep_last, before and after a resume), a NaN loss stops the run, and a damaged or foreign
// checkpoint is refused with a message that names it; and gradvar measures a gradient's noise right.
#include <doctest/doctest.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

#include "decode/batched.h"
#include "decode/greedy.h"
#include "decode/translate.h"
#include "lab/gradient_variance.h"
#include "run/config_io.h"
#include "run/run.h"
#include "run/trainer.h"
#include "tensor/safetensors.h"
#include "test_support.h"
#include "util/error.h"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the build directory for one test.
std::string fresh_dir(const std::string& name) {
  return testing::fresh_directory("test-train", name).string();
}

// A copy task small enough to train in well under a second: sequences of 2–6 symbols.
void write_copy_corpus(const std::string& dir) {
  Generator gen(7);
  testing::write_copy_split(dir, "train", 300, gen);
  testing::write_copy_split(dir, "valid", 20, gen);
}

std::string write_config(const std::string& dir, const std::string& extra = "") {
  write_copy_corpus(dir);
  std::ofstream config(dir + "/config.yaml");
  config << "data:\n"
         << "  train_src: " << dir << "/train.src\n  train_tgt: " << dir << "/train.tgt\n"
         << "  valid_src: " << dir << "/valid.src\n  valid_tgt: " << dir << "/valid.tgt\n"
         << "tokenizer:\n  kind: word\n"
         << "model:\n  d_model: 16\n  heads: 2\n  d_ff: 32\n  encoder_layers: 1\n  decoder_layers: 1\n"
         << "  dropout: 0.1\n"
         << "train:\n  threads: 1\n  batch_tokens: 200\n  max_steps: 30\n  lr: 0.003\n  schedule: constant\n"
         << "  warmup_steps: 5\n  valid_every: 10\n  valid_samples: 5\n  checkpoint_every: 10\n  keep_last: 2\n"
         << extra;
  return dir + "/config.yaml";
}

class Quiet : public TrainingObserver {};

// Stops the run (as Ctrl-C would) once a given step has finished.
class StopAt : public TrainingObserver {
 public:
  explicit StopAt(int64_t step) : step_(step) {}
  void on_step(const StepReport& r) override {
    if (r.step == step_) request_training_stop(SIGINT);
  }

 private:
  int64_t step_;
};

}  // namespace

TEST_CASE("a run stopped and resumed gives exactly the losses of a run never stopped (single thread)") {
  const std::string dir = fresh_dir("resume");
  const std::string config = write_config(dir);
  Quiet quiet;
  TrainSummary straight = train({config, dir + "/straight", {}, false}, quiet);
  REQUIRE(straight.losses.size() == 30);

  TrainSummary first = train({config, dir + "/stopped", {"train.max_steps=17"}, false}, quiet);
  REQUIRE(first.losses.size() == 17);
  TrainSummary second = train({"", dir + "/stopped", {"train.max_steps=30"}, true}, quiet);
  REQUIRE(second.losses.size() == 13);

  std::vector<double> joined = first.losses;
  joined.insert(joined.end(), second.losses.begin(), second.losses.end());
  for (size_t i = 0; i < joined.size(); ++i) {
    INFO("step ", i + 1);
    CHECK(joined[i] == straight.losses[i]);  // bit for bit
  }
}

TEST_CASE("Ctrl-C finishes the step, saves a checkpoint, and the run resumes from it") {
  const std::string dir = fresh_dir("interrupt");
  const std::string config = write_config(dir);
  StopAt stop(6);
  TrainSummary stopped = train({config, dir + "/run", {}, false}, stop);
  CHECK(stopped.outcome == TrainOutcome::interrupted);
  CHECK(stopped.step == 6);
  CHECK(fs::exists(stopped.checkpoint));
  Quiet quiet;
  TrainSummary resumed = train({"", dir + "/run", {}, true}, quiet);
  CHECK(resumed.outcome == TrainOutcome::finished);
  CHECK(resumed.step == 30);
  CHECK(resumed.losses.size() == 24);
}

TEST_CASE("a stop checkpoint a few steps after a regular one is kept beside it and counts once in the average") {
  const std::string dir = fresh_dir("stop-average");
  StopAt stop(22);  // regular checkpoints at 10 and 20 (keep_last 2), the stop one at 22
  train({write_config(dir, "  average_last: 2\n"), dir + "/run", {}, false}, stop);
  for (int64_t step : {10, 20, 22}) {
    CHECK(fs::exists(dir + "/run/checkpoints/step-000000" + std::to_string(step) + ".safetensors"));
  }
  const SafetensorsContents average = load_safetensors(dir + "/run/checkpoints/average.safetensors");
  CHECK(average.metadata.at("extra.averaged_from") == "step-00000010.safetensors, step-00000022.safetensors");
}

TEST_CASE("after a resume, a stop checkpoint and the regular one before it still count as one of keep_last") {
  const std::string dir = fresh_dir("stop-resume-average");
  StopAt stop(22);  // regular checkpoints at 10 and 20, the stop one at 22
  train({write_config(dir, "  average_last: 3\n"), dir + "/run", {"train.keep_last=3"}, false}, stop);
  Quiet quiet;
  train({"", dir + "/run", {}, true}, quiet);  // resumed at 22, on to step 30 and its regular checkpoint
  // 20 and 22 are one stretch, so keep_last 3 still keeps 10 beside them, and the last 3 to average are 10, 22, 30.
  for (int64_t step : {10, 20, 22, 30}) {
    CHECK(fs::exists(dir + "/run/checkpoints/step-000000" + std::to_string(step) + ".safetensors"));
  }
  const SafetensorsContents average = load_safetensors(dir + "/run/checkpoints/average.safetensors");
  CHECK(average.metadata.at("extra.averaged_from") ==
        "step-00000010.safetensors, step-00000022.safetensors, step-00000030.safetensors");
}

TEST_CASE("a run that never reached valid_every validates once at the end, and metrics.jsonl says so") {
  const std::string dir = fresh_dir("validate-at-end");
  Quiet quiet;
  const TrainSummary summary =
      train({write_config(dir), dir + "/run", {"train.max_steps=5", "train.valid_every=100"}, false}, quiet);
  CHECK(summary.validation.loss > 0);
  std::ifstream metrics(dir + "/run/metrics.jsonl");
  int valid_lines = 0;
  for (std::string line; std::getline(metrics, line);)
    valid_lines += line.find("\"type\":\"valid\"") != std::string::npos;
  CHECK(valid_lines == 1);
}

TEST_CASE("resuming a run that already reached max_steps trains nothing and names its last checkpoint") {
  const std::string dir = fresh_dir("resume-finished");
  const std::string config = write_config(dir);
  Quiet quiet;
  TrainSummary done = train({config, dir + "/run", {}, false}, quiet);
  REQUIRE(done.outcome == TrainOutcome::finished);
  TrainSummary again = train({"", dir + "/run", {}, true}, quiet);
  CHECK(again.outcome == TrainOutcome::finished);
  CHECK(again.step == 30);
  CHECK(again.losses.empty());
  CHECK(again.checkpoint == done.checkpoint);  // `attnlab train` prints it: "finished at step 30 …; checkpoint …"
}

TEST_CASE("a NaN or infinite loss stops the run with a message naming the step, keeping the last checkpoint") {
  const std::string dir = fresh_dir("nan");
  // A learning rate of 1e38 sends the weights to the edge of float32 in one step; the next loss overflows.
  const std::string config = write_config(dir);
  Quiet quiet;
  try {
    train({config, dir + "/run", {"train.lr=1e38", "train.clip_norm=0", "train.checkpoint_every=1"}, false}, quiet);
    FAIL("training with lr 1e38 should have stopped on a non-finite loss");
  } catch (const Error& e) {
    const std::string message = e.what();
    CHECK(message.find("at step") != std::string::npos);
    CHECK((message.find("NaN") != std::string::npos || message.find("infinite") != std::string::npos));
    CHECK(message.find("step-") != std::string::npos);  // names the last good checkpoint file
  }
  CHECK_FALSE(fs::is_empty(dir + "/run/checkpoints"));
}

TEST_CASE("a truncated checkpoint is refused with a message naming the file") {
  const std::string dir = fresh_dir("truncated");
  const std::string config = write_config(dir);
  Quiet quiet;
  TrainSummary run = train({config, dir + "/run", {"train.max_steps=10"}, false}, quiet);
  fs::resize_file(run.checkpoint, fs::file_size(run.checkpoint) / 2);
  try {
    train({"", dir + "/run", {"train.max_steps=20"}, true}, quiet);
    FAIL("resuming from a truncated checkpoint should fail");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find(fs::path(run.checkpoint).filename().string()) != std::string::npos);
  }
}

TEST_CASE("a checkpoint made for another model shape is refused, naming a parameter and both shapes") {
  const std::string dir = fresh_dir("mismatch");
  const std::string config = write_config(dir);
  Quiet quiet;
  train({config, dir + "/run", {"train.max_steps=10"}, false}, quiet);
  try {
    train({"", dir + "/run", {"train.max_steps=20", "model.d_model=32"}, true}, quiet);
    FAIL("resuming with another d_model should fail");
  } catch (const Error& e) {
    const std::string message = e.what();
    CHECK(message.find("[32") != std::string::npos);
    CHECK(message.find("[16") != std::string::npos);
  }
}

TEST_CASE("a new run refuses a folder that already holds one, and --resume refuses a folder that holds none") {
  const std::string dir = fresh_dir("folders");
  const std::string config = write_config(dir);
  Quiet quiet;
  train({config, dir + "/run", {"train.max_steps=2"}, false}, quiet);
  CHECK_THROWS_WITH_AS(train({config, dir + "/run", {}, false}, quiet), doctest::Contains("already holds a run"),
                       Error);
  CHECK_THROWS_WITH_AS(train({"", dir + "/empty", {}, true}, quiet), doctest::Contains("not a run folder"), Error);
}

TEST_CASE("a trained run folder translates: load_run gives the model, tokenizers and greedy decoding") {
  const std::string dir = fresh_dir("translate");
  const std::string config = write_config(dir);
  Quiet quiet;
  train({config, dir + "/run", {"train.max_steps=10"}, false}, quiet);
  LoadedRun run = load_run(dir + "/run");
  CHECK(run.step == 10);
  std::vector<int32_t> ids = run.tokenizers.src->encode("a b c");
  REQUIRE(ids.size() == 3);
  std::vector<std::vector<int32_t>> out = greedy_decode(*run.model, pad_batch({ids}), run.config.decode);
  REQUIRE(out.size() == 1);
  CHECK(out[0].size() <= static_cast<size_t>(run.config.decode.max_len_ratio * 3 + run.config.decode.max_len_extra));
}

TEST_CASE("a trained model translates many sentences in length-sorted batches exactly as one at a time") {
  const std::string dir = fresh_dir("batched");
  const std::string config = write_config(dir);
  Quiet quiet;
  train({config, dir + "/run", {"train.max_steps=600", "train.valid_every=1000", "train.checkpoint_every=1000"}, false},
        quiet);
  LoadedRun run = load_run(dir + "/run");
  Generator gen(5);
  std::vector<std::string> lines;  // 40 sentences of 1–8 symbols, some the model saw
  std::vector<std::vector<int32_t>> sources;
  for (int i = 0; i < 40; ++i) {
    std::string line;
    for (int64_t k = 0, n = gen.integer(1, 9); k < n; ++k)
      line += (k ? " " : "") + std::string(1, char('a' + gen.integer(0, 8)));
    lines.push_back(line);
    sources.push_back(run.tokenizers.src->encode(line));
  }
  for (int64_t beam : {1, 4}) {
    DecodeConfig decode = run.config.decode;
    decode.beam = beam;
    decode.batch_tokens = 48;
    const std::vector<std::vector<int32_t>> batched = translate_batched(*run.model, sources, decode);
    int64_t copied = 0;
    for (size_t i = 0; i < sources.size(); ++i) {
      CAPTURE(beam);
      CAPTURE(i);
      const std::vector<int32_t> alone = translate_ids(*run.model, pad_batch({sources[i]}), decode)[0];
      CHECK(batched[i] == alone);
      copied += run.tokenizers.tgt->decode(alone) == lines[i];
    }
    CHECK(copied >= 10);  // the model has learned something: the comparison is of real translations
  }
}

// ---- Values read from a checkpoint are checked where they are read --------------------------------------------

namespace {

// The message of the Error that resuming `run_dir` ends in ("" if it does not end in one; any other exception
// escapes and fails the test, as an `internal error` would).
std::string resume_error(const std::string& run_dir) {
  Quiet quiet;
  try {
    train({"", run_dir, {"train.max_steps=20"}, true}, quiet);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE(
    "a checkpoint whose metadata lacks a field, holds text for a number or an impossible position is refused, "
    "naming the file and the field") {
  const std::string dir = fresh_dir("metadata");
  const std::string config = write_config(dir);
  Quiet quiet;
  const TrainSummary done = train({config, dir + "/run", {"train.max_steps=10"}, false}, quiet);
  const SafetensorsContents good = load_safetensors(done.checkpoint);
  const std::string file = fs::path(done.checkpoint).filename().string();
  struct Case {
    std::string field, value;  // value "" erases the field
    std::string expected;
  };
  for (const Case& c :
       {Case{"format", "pytorch", "not an attnlab checkpoint (its metadata has \"format\": \"pytorch\""},
        Case{"version", "", "no \"version\""},
        Case{"version", "99", "checkpoint format version \"99\", but this attnlab reads version"},
        Case{"step", "", "no \"step\""}, Case{"step", "12x", "\"step\" is \"12x\", not a whole number"},
        Case{"step", "-4", "\"step\" is -4, but it must be ≥ 0"}, Case{"optimizer_steps", "", "no \"optimizer_steps\""},
        Case{"best_metric", "low", "\"best_metric\" is \"low\", not a number"},
        Case{"best_metric", "nan", "\"best_metric\" is \"nan\", not a number"},
        Case{"generator", "", "no \"generator\""},
        Case{"generator", "not a state", "\"generator\": not a random-generator state"},
        Case{"generator", good.metadata.at("generator") + " 7", "\"generator\": not a random"},
        Case{"extra.epoch", "", "no \"extra.epoch\""},
        Case{"extra.epoch", "one", "\"extra.epoch\" is \"one\", not a whole number"},
        Case{"extra.epoch", "-1", "\"extra.epoch\" is -1, but it must be in 0 … 10"},
        Case{"extra.batch_in_epoch", "", "no \"extra.batch_in_epoch\""},
        Case{"extra.batch_in_epoch", "-3", "\"extra.batch_in_epoch\" is -3, but it must be in 0 …"},
        Case{"extra.batch_in_epoch", "100000", "\"extra.batch_in_epoch\" is 100000, but it must be"},
        Case{"extra.batch_in_epoch", std::string(100000, '7'), "(100000 bytes)"}}) {
    CAPTURE(c.field);
    CAPTURE(c.value);
    std::map<std::string, std::string> metadata = good.metadata;
    if (c.value.empty())
      metadata.erase(c.field);
    else
      metadata[c.field] = c.value;
    save_safetensors(done.checkpoint, good.tensors, metadata);
    const std::string message = resume_error(dir + "/run");
    CHECK_MESSAGE(message.find(file) != std::string::npos, message);
    CHECK_MESSAGE(message.find(c.expected) != std::string::npos, message);
    CHECK_MESSAGE(message.size() < 400, message);  // a long value is quoted by a short prefix
  }
  save_safetensors(done.checkpoint, good.tensors, good.metadata);  // and the untouched file still resumes
  CHECK(resume_error(dir + "/run").empty());
}

TEST_CASE("a tokenizers.json of the wrong shape is refused naming the file, not with a JSON library exception") {
  const std::string dir = fresh_dir("tokenizers-json");
  const std::string config = write_config(dir);
  Quiet quiet;
  train({config, dir + "/run", {"train.max_steps=2"}, false}, quiet);
  const RunConfig run_config = load_config(dir + "/run/config.yaml");
  for (const std::string text :
       {R"({"src": 5, "tgt": "tokenizer"})", R"(["tokenizer"])", R"({"src": "../../x"})", R"({"src": ""})", "7"}) {
    CAPTURE(text);
    write_file_atomically(dir + "/run/tokenizers.json", text);
    CHECK_THROWS_WITH_AS(load_run_tokenizers(run_config, dir + "/run"), doctest::Contains("tokenizers.json"), Error);
    CHECK_THROWS_WITH_AS(load_run(dir + "/run"), doctest::Contains("tokenizers.json"), Error);
  }
}

// ---- A failed start leaves nothing behind ------------------------------------------------------------------------

TEST_CASE("a start refused before training leaves no folder behind, and the same command works once fixed") {
  const std::string dir = fresh_dir("failed-start");
  const std::string config = write_config(dir);
  Quiet quiet;
  const std::string missing = "data.train_src=" + dir + "/no-such.src";
  CHECK_THROWS_WITH_AS(train({config, dir + "/run", {missing}, false}, quiet), doctest::Contains("no-such.src"), Error);
  CHECK_FALSE(fs::exists(dir + "/run"));
  // A model too large for the machine is refused after the tokenizers were written: they go too.
  CHECK_THROWS_WITH_AS(
      train({config, dir + "/run", {"model.d_model=65536", "model.d_ff=1048576", "model.encoder_layers=1000"}, false},
            quiet),
      doctest::Contains("too large for this machine"), Error);
  CHECK_FALSE(fs::exists(dir + "/run"));
  CHECK_THROWS_WITH_AS(train({"", dir + "/run", {}, true}, quiet), doctest::Contains("not a run folder"), Error);
  CHECK(train({config, dir + "/run", {"train.max_steps=2"}, false}, quiet).step == 2);

  // A folder the user already had stays, with what it held, and nothing else.
  fs::create_directories(dir + "/mine");
  std::ofstream(dir + "/mine/notes.txt") << "my notes\n";
  CHECK_THROWS_AS(train({config, dir + "/mine", {missing}, false}, quiet), Error);
  CHECK(fs::exists(dir + "/mine/notes.txt"));
  CHECK(std::distance(fs::directory_iterator(dir + "/mine"), fs::directory_iterator()) == 1);
  // So does a link of the user's that points nowhere: the start is refused, and the link stays.
  fs::create_symlink(dir + "/nowhere", dir + "/link");
  CHECK_THROWS_AS(train({config, dir + "/link", {}, false}, quiet), Error);
  CHECK(fs::is_symlink(dir + "/link"));
}

// ---- Gradient variance (attnlab gradvar, lab/gradient_variance.h) ---------------------------------------------

TEST_CASE("gradient statistics: the mean's squared length, the unbiased covariance trace and their ratio") {
  // g_1 = (1, 0), g_2 = (3, 2): ḡ = (2, 1), ‖ḡ‖² = 5; deviations (−1, −1) and (1, 1), Σ‖·‖² = 4, / (K − 1) = 4.
  const GradientStatistics s = gradient_statistics({{1, 0}, {3, 2}});
  CHECK(s.samples == 2);
  CHECK(s.numbers == 2);
  CHECK(s.mean_norm2 == doctest::Approx(5));
  CHECK(s.variance_trace == doctest::Approx(4));
  CHECK(s.snr() == doctest::Approx(1.25));
  // Three equal gradients: no noise at all, and an infinite ratio; K = 1 or unequal lengths are refused.
  const GradientStatistics same = gradient_statistics({{0.5, -2}, {0.5, -2}, {0.5, -2}});
  CHECK(same.mean_norm2 == doctest::Approx(4.25));
  CHECK(same.variance_trace == 0);
  CHECK(std::isinf(same.snr()));
  CHECK_THROWS_WITH_AS(gradient_statistics({{1, 2}}), doctest::Contains("at least 2"), Error);
  CHECK_THROWS_WITH_AS(gradient_statistics({{1, 2}, {1}}), doctest::Contains("same parameter"), Error);
}

TEST_CASE("soft attention's gradient on one batch has no variance; hard attention's has, from its sampling alone") {
  const std::string dir = fresh_dir("gradvar");
  const std::string config = write_config(dir);
  Quiet quiet;
  train({config, dir + "/soft", {"train.max_steps=10"}, false}, quiet);
  train({config, dir + "/hard", {"train.max_steps=10", "model.attention.cross.kind=hard"}, false}, quiet);
  GradientVarianceRequest request;
  request.run_dir = dir + "/soft";
  request.samples = 4;
  request.steps = {0, 10};
  const std::string W_Q = "decoder.layers.0.encoder_attn.q_proj.weight";
  const std::vector<GradientVarianceRow> soft = measure_gradient_variance(request);
  REQUIRE(soft.size() == 2 * 2 * 2);  // steps × sources × (W_Q, W_K)
  for (const GradientVarianceRow& row : soft) {
    INFO(row.parameter, " at step ", row.step, " over ", row.source);
    CHECK(row.statistics.mean_norm2 > 0);
    if (row.source == "batch")
      CHECK(row.statistics.variance_trace == 0);  // the same gradient K times, exactly
    else
      CHECK(row.statistics.variance_trace > 0);  // other batches, other gradients
  }
  request.run_dir = dir + "/hard";
  request.sources = {"batch"};
  request.parameters = {W_Q};
  for (const GradientVarianceRow& row : measure_gradient_variance(request)) {
    INFO("step ", row.step);
    CHECK(row.parameter == W_Q);
    CHECK(row.statistics.mean_norm2 > 0);
    CHECK(row.statistics.variance_trace > 0);  // fresh keys on every pass
  }

  // Bad requests name what is wrong.
  request.steps = {7};
  CHECK_THROWS_WITH_AS(measure_gradient_variance(request), doctest::Contains("no checkpoint of step 7"), Error);
  request.steps = {0};
  request.parameters = {"decoder.layers.0.encoder_attn.q_proj.wieght"};
  CHECK_THROWS_WITH_AS(measure_gradient_variance(request), doctest::Contains(("did you mean '" + W_Q + "'").c_str()),
                       Error);
  request.parameters = {};
  request.samples = 1;
  CHECK_THROWS_WITH_AS(measure_gradient_variance(request), doctest::Contains("at least 2"), Error);
  request.samples = 2;
  request.run_dir = dir + "/nothing";
  CHECK_THROWS_WITH_AS(measure_gradient_variance(request), doctest::Contains("not a run folder"), Error);
}
