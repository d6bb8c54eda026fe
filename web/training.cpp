// training.cpp — a Transformer learning in the page: the run/ chapter's train(), unchanged, on the in-memory file
// system, reporting to the page as it goes (the browser build's entry point, with engine.cpp).
//
// The page's training worker (src/inspect/pages/live/training.js) trains in slices: it calls attnlab_train() for a
// few seconds of steps, and again with "resume" — train()'s own --resume, which continues single-threaded exactly
// as a run never stopped (trainer.h) — until the run is done or the learner pauses. A worker cannot hear the page
// while WebAssembly runs on its thread (the threaded engine's OpenMP team works inside the call too, and a page
// opened from disk has no SharedArrayBuffer to share a flag through), so between two slices is where a pause is
// heard; pausing is simply not starting the next slice.
//   slice:  train() from the latest checkpoint → steps until `slice_seconds` have passed → a step checkpoint
// Meanwhile the page hears, through Module.onTrainingReport(json):
//   {"step": s, "loss": l, "learning_rate": r, "seconds": t, "tokens_per_second": n}   every few steps
//   {"validation": {"step", "loss", "exact_match", "token_accuracy"}, "attention": attention.json}
//                         at every validation: the learner's sentence translated by the best weights so far, with
//                         its maps (or "attention_error" when it cannot be), and the run folder is then complete
//                         enough for the explorer to load
// The corpus is generated here once per worker (data/synthetic: the same bytes `attnlab corpus --task TASK`
// writes, which for toy-en-fr are the shipped data/toy-en-fr), under data/TASK, where configs/TASK.yaml reads it.
// Training stops on its own once every validation sentence is right, so a learner does not wait for max_steps.
#include <emscripten.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "data/synthetic/synthetic.h"
#include "inspect/maps/attention_maps.h"
#include "run/run.h"
#include "run/trainer.h"
#include "util/error.h"
#include "util/files.h"

// Hands one report to the page's JavaScript (the worker posts it on to the page).
EM_JS(void, report_to_page, (const char* json), {
  if (Module.onTrainingReport) Module.onTrainingReport(UTF8ToString(json));
});

namespace attnlab {
namespace {

constexpr double seconds_between_step_reports = 0.1;  // about ten points a second on the loss curve

class PageObserver : public TrainingObserver {
 public:
  PageObserver(std::string run_dir, std::string sentence, double slice_seconds)
      : run_dir_(std::move(run_dir)), sentence_(std::move(sentence)), slice_seconds_(slice_seconds) {}

  bool learned() const { return learned_; }  // every validation sentence right: the run is done
  bool sliced() const { return sliced_; }    // this slice's time is up (not a stop for good)

  void on_step(const StepReport& report) override {
    const auto now = std::chrono::steady_clock::now();
    if (report_count_++ == 0) first_step_ = now;  // the slice's time counts from its first step (not the set-up)
    const double seconds = std::chrono::duration<double>(now - first_step_).count();
    if (seconds >= slice_seconds_ && !sliced_) {
      sliced_ = true;
      request_training_stop(SIGINT);  // after this step: train() saves it as a step checkpoint
    } else if (report.elapsed_seconds - last_report_ < seconds_between_step_reports &&
               report.step != report.max_steps) {
      return;
    }
    last_report_ = report.elapsed_seconds;
    send({{"step", report.step},
          {"loss", report.loss},
          {"learning_rate", report.learning_rate},
          {"seconds", report.elapsed_seconds},
          {"tokens_per_second", report.tokens_per_second}});
  }

  void on_validation(int64_t step, const ValidationResult& result, bool) override {
    nlohmann::json message = {{"validation",
                               {{"step", step},
                                {"loss", result.loss},
                                {"exact_match", result.exact_match},
                                {"token_accuracy", result.token_accuracy}}}};
    try {
      LoadedRun best = load_run(run_dir_, "best");  // written just before this call, when it is the best
      message["attention"] = nlohmann::json::parse(attention_json(record_attention(best, sentence_)));
    } catch (const std::exception& e) {  // the learner's sentence: an empty one, say
      message["attention_error"] = e.what();
    }
    send(message);
    if (result.exact_match >= 1.0) {
      learned_ = true;
      request_training_stop(SIGINT);
    }
  }

 private:
  static void send(const nlohmann::json& message) { report_to_page(message.dump().c_str()); }
  std::string run_dir_, sentence_;
  double slice_seconds_;
  std::chrono::steady_clock::time_point first_step_;
  int64_t report_count_ = 0;
  double last_report_ = -1;
  bool learned_ = false, sliced_ = false;
};

// The task's corpus under data/TASK, generated on a worker's first slice (the worker keeps its file system from
// slice to slice); returns its first validation sentence, the one watched when the learner names none.
std::string corpus_in_place(const std::string& task) {
  static std::map<std::string, std::string> first_valid;  // task → its first validation sentence, once written
  if (first_valid.count(task) == 0) {
    const Corpus corpus = generate_corpus(task);
    write_corpus(corpus, "data/" + task);
    first_valid[task] = corpus.valid.source.front();
  }
  return first_valid[task];
}

// The answer to one slice: "finished" (train.max_steps reached, or every validation sentence right), "slice"
// (its seconds are up: the page starts the next, or pauses) or "stopped"; and this slice's losses, every step's.
nlohmann::json slice_answer(const TrainSummary& summary, const PageObserver& observer, const std::string& run_dir) {
  const bool finished = summary.outcome == TrainOutcome::finished || observer.learned();
  const std::string outcome = finished ? "finished" : observer.sliced() ? "slice" : "stopped";
  return {{"outcome", outcome},         {"step", summary.step},
          {"seconds", summary.seconds}, {"exact_match", summary.validation.exact_match},
          {"losses", summary.losses},   {"run", run_dir}};
}

}  // namespace
}  // namespace attnlab

extern "C" {

// Trains one slice. request: {"task": "toy-en-fr", "config": the config's YAML text, "overrides":
// ["train.max_steps=3000"], "run": "/runs/toy-en-fr", "resume": false, "sentence": "the red car", "slice_seconds": 4}.
// A new run ("resume" false) needs "config"; a resumed one continues the run folder "run" holds (a slice before,
// or a run's files the page wrote there). Answers slice_answer() above, or {"error": …}.
const char* attnlab_train(const char* request_text) {
  using namespace attnlab;
  static std::string answer;
  try {
    const nlohmann::json request = nlohmann::json::parse(request_text);
    const std::string task = request.at("task").get<std::string>();
    const std::string run_dir = request.value("run", "/runs/" + task);
    const bool resume = request.value("resume", false);
    const double slice_seconds = request.value("slice_seconds", 1e9);
    if (!(slice_seconds > 0))
      throw Error("\"slice_seconds\" must be more than 0, not " + std::to_string(slice_seconds));
    const std::string first_valid = corpus_in_place(task);
    const std::string config_path = "configs/" + task + ".yaml";
    if (!resume) {
      std::filesystem::create_directories("configs");
      write_file_atomically(config_path, request.at("config").get<std::string>());
    }
    std::string sentence = request.value("sentence", "");
    PageObserver observer(run_dir, sentence.empty() ? first_valid : sentence, slice_seconds);
    // No GEMM peak for the MFU: the page shows none, and measuring it (four 1024³ products) would cost every slice
    // seconds of WebAssembly.
    const TrainSummary summary =
        train({resume ? "" : config_path, run_dir, request.value("overrides", std::vector<std::string>{}), resume,
               /*measure_peak=*/false},
              observer);
    answer = slice_answer(summary, observer, run_dir).dump();
  } catch (const std::exception& e) {
    answer = nlohmann::json{{"error", e.what()}}.dump();
  }
  return answer.c_str();
}

}  // extern "C"
