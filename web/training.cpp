// training.cpp — a Transformer learning to copy, in the page: the run/ chapter's train(), unchanged, on the
// in-memory file system, reporting to the page as it goes (the browser build's entry point, with engine.cpp).
//
// The page's training worker (src/inspect/pages/live/training.js) calls attnlab_train() once; it returns when training
// ends. Meanwhile the page hears, through Module.onTrainingReport(json):
//   {"step": s, "loss": l, "learning_rate": r, "seconds": t}                     every few steps (the loss curve)
//   {"validation": {"step", "loss", "exact_match", "token_accuracy"}, "attention": attention.json}
//                                                    at every validation: the maps of one validation sentence, drawn
//                                                    by the best weights so far (they sharpen as it learns), and the
//                                                    run folder is then complete enough for the explorer to load
// The corpus is generated here (data/synthetic, the same files `attnlab corpus --task copy` writes) and the
// config is the one the page carries (configs/copy.yaml). Training stops on its own once every validation
// sentence is copied exactly, so a learner does not wait for max_steps; the page's Stop button ends the worker.
#include <emscripten.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "data/synthetic/synthetic.h"
#include "inspect/maps/attention_maps.h"
#include "run/run.h"
#include "run/trainer.h"
#include "util/files.h"

// Hands one report to the page's JavaScript (the worker posts it on to the page).
EM_JS(void, report_to_page, (const char* json), { if (Module.onTrainingReport) Module.onTrainingReport(UTF8ToString(json)); });

namespace attnlab {
namespace {

constexpr double seconds_between_step_reports = 0.1;   // about ten points a second on the loss curve

class PageObserver : public TrainingObserver {
 public:
  PageObserver(std::string run_dir, std::string sentence) : run_dir_(std::move(run_dir)), sentence_(std::move(sentence)) {}

  void on_step(const StepReport& report) override {
    if (report.elapsed_seconds - last_report_ < seconds_between_step_reports && report.step != report.max_steps) return;
    last_report_ = report.elapsed_seconds;
    send({{"step", report.step}, {"loss", report.loss}, {"learning_rate", report.learning_rate},
          {"seconds", report.elapsed_seconds}});
  }

  void on_validation(int64_t step, const ValidationResult& result, bool) override {
    nlohmann::json message = {{"validation", {{"step", step}, {"loss", result.loss},
                                              {"exact_match", result.exact_match},
                                              {"token_accuracy", result.token_accuracy}}}};
    LoadedRun best = load_run(run_dir_, "best");   // written just before this call, when it is the best
    message["attention"] = nlohmann::json::parse(attention_json(record_attention(best, sentence_)));
    send(message);
    if (result.exact_match >= 1.0) request_training_stop(SIGINT);   // every validation sentence right: done
  }

 private:
  static void send(const nlohmann::json& message) { report_to_page(message.dump().c_str()); }
  std::string run_dir_, sentence_;
  double last_report_ = -1;
};

}  // namespace
}  // namespace attnlab

extern "C" {

// Trains a symbol task in the page. request: {"task": "copy", "config": the config's YAML text, "overrides":
// ["train.max_minutes=3"], "run": "/runs/copy"}. Answers {"outcome", "step", "seconds", "exact_match", "run"}
// or {"error": …}.
const char* attnlab_train(const char* request_text) {
  using namespace attnlab;
  static std::string answer;
  try {
    const nlohmann::json request = nlohmann::json::parse(request_text);
    const std::string task = request.at("task").get<std::string>();
    const std::string run_dir = request.value("run", "/runs/" + task);
    const Corpus corpus = generate_corpus(task);
    write_corpus(corpus, "data/" + task);                        // where configs/<task>.yaml reads it
    std::filesystem::create_directories("configs");
    write_file_atomically("configs/" + task + ".yaml", request.at("config").get<std::string>());
    PageObserver observer(run_dir, corpus.valid.source.front());
    const TrainSummary summary = train({"configs/" + task + ".yaml", run_dir,
                                        request.value("overrides", std::vector<std::string>{}), false},
                                       observer);
    answer = nlohmann::json{{"outcome", summary.outcome == TrainOutcome::finished ? "finished" : "stopped"},
                            {"step", summary.step}, {"seconds", summary.seconds},
                            {"exact_match", summary.validation.exact_match}, {"run", run_dir}}
                 .dump();
  } catch (const std::exception& e) {
    answer = nlohmann::json{{"error", e.what()}}.dump();
  }
  return answer.c_str();
}

}  // extern "C"
