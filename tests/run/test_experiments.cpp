// test_experiments.cpp — the ablation configs in configs/experiments/ stay usable: each one loads with the config
// loader, builds its model and trains two steps (on a tiny corpus instead of toy-en-fr, so the test takes
// seconds), each opens with its comment saying what to expect, and configs/experiments/README.md lists each one.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run/config_io.h"
#include "run/trainer.h"
#include "test_support.h"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

const fs::path experiments = fs::path(ATTNLAB_SOURCE_DIR) / "configs" / "experiments";

std::vector<fs::path> experiment_configs() {
  std::vector<fs::path> configs;
  for (const fs::directory_entry& entry : fs::directory_iterator(experiments)) {
    if (entry.path().extension() == ".yaml") configs.push_back(entry.path());
  }
  std::sort(configs.begin(), configs.end());
  return configs;
}

// Twelve pairs of a tiny French-like corpus, the same file for every split.
std::string write_tiny_corpus(const fs::path& dir) {
  std::ofstream en(dir / "tiny.en"), fr(dir / "tiny.fr");
  const char* pairs[][2] = {{"the cat sleeps .", "le chat dort ."}, {"the dog sleeps .", "le chien dort ."},
                            {"a cat eats .", "un chat mange ."},    {"a dog eats .", "un chien mange ."},
                            {"the red cat .", "le chat rouge ."},   {"the big dog .", "le grand chien ."}};
  for (int repeat = 0; repeat < 2; ++repeat) {
    for (const auto& pair : pairs) {
      en << pair[0] << "\n";
      fr << pair[1] << "\n";
    }
  }
  return (dir / "tiny").string();
}

class Quiet : public TrainingObserver {};

}  // namespace

TEST_CASE("there are ablation configs: positions, scaling, heads, norm, residual and every attention kind") {
  std::vector<std::string> names;
  for (const fs::path& p : experiment_configs()) names.push_back(p.stem().string());
  for (const char* expected : {"baseline", "no-positional", "no-scale", "one-head", "pre-ln", "no-residual",
                               "additive", "simplified", "sagan", "external", "linear", "window", "local_m",
                               "local_p", "hard"}) {
    INFO("missing configs/experiments/", expected, ".yaml");
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
}

TEST_CASE("every configs/experiments/*.yaml loads, opens with its expectation and what was measured, is listed, "
          "and trains two steps") {
  const std::string readme = testing::read_bytes(experiments / "README.md");
  const fs::path work = testing::fresh_directory("test-experiments", "two-steps");
  const std::string corpus = write_tiny_corpus(work);
  for (const fs::path& config : experiment_configs()) {
    const std::string name = config.stem().string();
    CAPTURE(name);
    const std::string text = testing::read_bytes(config);
    CHECK(text.rfind("# experiments/" + name + ".yaml — ", 0) == 0);   // the opening comment names the file
    CHECK(text.find("Expected") != std::string::npos);                  // … and says what to expect
    CHECK(text.find("Measured") != std::string::npos);                  // … and what happened
    CHECK(readme.find("(" + name + ".yaml)") != std::string::npos);     // a link in the README's table

    RunConfig loaded = load_config(config.string());                     // as written, toy-en-fr paths and all
    CHECK(loaded.train.max_minutes == 3);                               // the shared budget
    if (loaded.model.task == Task::cloze) {                                 // the readers: their own corpus, and their
      CHECK(loaded.data.train_src == "data/cloze/train.question");      // training is tested in test_cloze.cpp
      continue;
    }
    CHECK(loaded.data.train_src == "data/toy-en-fr/train.en");

    TrainRequest request;
    request.config_path = config.string();
    request.run_dir = (work / name).string();
    for (const char* split : {"train", "valid", "test"}) {
      request.overrides.push_back("data." + std::string(split) + "_src=" + corpus + ".en");
      request.overrides.push_back("data." + std::string(split) + "_tgt=" + corpus + ".fr");
    }
    for (const char* setting : {"train.max_steps=2", "train.max_minutes=0", "train.threads=1",
                                "train.batch_tokens=100", "train.valid_every=2", "train.valid_samples=2",
                                "train.checkpoint_every=2"}) {
      request.overrides.push_back(setting);
    }
    Quiet quiet;
    TrainSummary summary = train(request, quiet);
    CHECK(summary.step == 2);
    CHECK(summary.losses.size() == 2);
    CHECK(std::all_of(summary.losses.begin(), summary.losses.end(), [](double l) { return std::isfinite(l); }));
  }
}
