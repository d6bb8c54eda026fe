// train_command.cpp — `attnlab train`: runs the trainer and shows its progress.
//
// On a terminal: one progress line redrawn in place (step / total, loss, learning rate, tokens/s, ETA).
// Otherwise (a log file, CI): a plain log line every train.log_every steps. Ctrl-C or SIGTERM asks the trainer
// to finish its step, save a checkpoint and stop; the command then says how to resume and exits with 130.
// Under mpirun (docs/guide/data-parallelism.md, src/distributed/data_parallel.h) every rank runs this command; rank 0 alone
// shows progress, and an error on any rank ends the whole job with a message that names the rank.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cloze/cloze_training.h"
#include "distributed/data_parallel.h"
#include "gpt/language_model.h"
#include "run/trainer.h"
#include "run/training_loop.h"
#include "util/error.h"

namespace attnlab {

struct TrainCommandOptions {
  std::string config;                  // a new run from this config file
  std::string run;                     // … written into this folder
  std::string resume;                  // or: continue the run in this folder
  std::vector<std::string> overrides;  // --set key=value
};

namespace {

std::string clock_text(double seconds) {
  long s = static_cast<long>(seconds + 0.5);
  char text[32];
  if (s >= 3600) std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

class ProgressObserver : public TrainingObserver {
 public:
  ProgressObserver() : terminal_(::isatty(STDERR_FILENO) == 1) {}

  void on_step(const StepReport& r) override {
    const double seconds_per_step = r.elapsed_seconds / static_cast<double>(std::max<int64_t>(1, r.step - first_step(r)));
    double eta = seconds_per_step * static_cast<double>(r.max_steps - r.step);
    if (r.time_limit_seconds > 0) eta = std::min(eta, std::max(0.0, r.time_limit_seconds - r.elapsed_seconds));
    char line[256];
    char ranks[64] = "";
    if (r.ranks > 1) {
      std::snprintf(ranks, sizeof ranks, " on %d ranks (%.0f%% in all-reduce)", r.ranks,
                    100 * r.communication_seconds / std::max(r.elapsed_seconds, 1e-9));
    }
    char mfu[32] = "";
    if (r.mfu > 0) std::snprintf(mfu, sizeof mfu, "  MFU %.0f%%", 100 * r.mfu);   // train/utilisation.h
    std::snprintf(line, sizeof line, "step %lld/%lld  loss %.4f  lr %.2e  %.0f tok/s%s%s  epoch %lld  ETA %s",
                  static_cast<long long>(r.step), static_cast<long long>(r.max_steps), r.loss, r.learning_rate,
                  r.tokens_per_second, mfu, ranks, static_cast<long long>(r.epoch), clock_text(eta).c_str());
    if (terminal_) {
      const int width = 24;
      int filled = static_cast<int>(width * static_cast<double>(r.step) / static_cast<double>(std::max<int64_t>(r.max_steps, 1)));
      std::string bar = "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(width - filled), '.') + "] ";
      std::fprintf(stderr, "\r\033[K%s%s", bar.c_str(), line);
      std::fflush(stderr);
      bar_shown_ = true;
    } else if (r.log_every > 0 && r.step % r.log_every == 0) {
      spdlog::info("{}", line);
    }
  }

  void on_validation(int64_t step, const ValidationResult& v, bool is_best) override {
    clear_bar();
    spdlog::info("validation at step {}: loss {:.4f}  perplexity {:.2f}  token accuracy {:.1f}%  exact match {:.1f}% "
                 "BLEU {:.2f} ({} sentences){}",
                 step, v.loss, v.perplexity, 100 * v.token_accuracy, 100 * v.exact_match, v.bleu, v.sentences_decoded,
                 is_best ? "  — best so far, saved" : "");
  }

  void on_message(const std::string& text) override {
    clear_bar();
    spdlog::info("{}", text);
  }

  void clear_bar() {
    if (bar_shown_) std::fprintf(stderr, "\r\033[K");
    bar_shown_ = false;
  }

 private:
  int64_t first_step(const StepReport& r) {
    if (first_step_ < 0) first_step_ = r.step - 1;
    return first_step_;
  }
  bool terminal_;
  bool bar_shown_ = false;
  int64_t first_step_ = -1;
};

void on_stop_signal(int signal_number) { request_training_stop(signal_number); }

// train() on every rank of an mpirun job (one process: rank 0 of 1). Ranks other than 0 show nothing but
// warnings and errors. An error on any rank ends the whole job (MPI_Abort), after one line naming the rank:
// the others may be waiting for it in an all-reduce and would otherwise wait forever.
TrainSummary train_as_rank(const TrainRequest& request, ProgressObserver& observer) {
  const int rank = collective::rank(), ranks = collective::ranks();
  TrainingObserver silent;
  if (rank != 0) spdlog::set_level(std::max(spdlog::get_level(), spdlog::level::warn));
  try {
    TrainingObserver& heard = rank == 0 ? static_cast<TrainingObserver&>(observer) : silent;
    // model.task: cloze trains a reader (cloze/cloze_training.h), language_model a decoder-only model
    // (gpt/language_model.h); every other run the translation model.
    if (is_language_model_request(request)) return train_language_model(request, heard);
    return is_cloze_request(request) ? train_cloze(request, heard) : train(request, heard);
  } catch (const std::exception& e) {
    if (ranks == 1) throw;
    observer.clear_bar();
    std::fprintf(stderr, "attnlab: rank %d of %d: %s\n", rank, ranks, e.what());
    collective::abort_job(1);
  }
}

}  // namespace

int train_command(const TrainCommandOptions& options) {
  TrainRequest request;
  request.config_path = options.config;
  request.overrides = options.overrides;
  request.resume = !options.resume.empty();
  request.run_dir = request.resume ? options.resume : options.run;
  if (!options.resume.empty() && !options.config.empty()) {
    throw Error("give either --config (a new run) or --resume RUN_DIR (continue one), not both");
  }
  if (request.run_dir.empty()) throw Error("attnlab train needs --run DIR (where to write the run) or --resume DIR");

  MpiJob job;                                    // joins the mpirun job, if there is one (data_parallel.h)
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  ProgressObserver observer;
  TrainSummary summary = train_as_rank(request, observer);
  observer.clear_bar();
  if (collective::rank() != 0) return summary.outcome == TrainOutcome::interrupted ? 130 : 0;
  std::printf("%s at step %lld after %s; checkpoint %s\n",
              summary.outcome == TrainOutcome::finished     ? "finished"
              : summary.outcome == TrainOutcome::time_limit ? "stopped at train.max_minutes"
                                                            : "interrupted",
              static_cast<long long>(summary.step), clock_text(summary.seconds).c_str(), summary.checkpoint.c_str());
  if (summary.outcome != TrainOutcome::finished && !is_cloze_run(request.run_dir) &&
      !is_language_model_run(request.run_dir)) {                      // cloze, language models: no --resume
    std::printf("continue with: attnlab train --resume %s\n", request.run_dir.c_str());
  }
  return summary.outcome == TrainOutcome::interrupted ? 130 : 0;
}

// `attnlab train`: its options and their help texts, read into TrainCommandOptions; main.cpp runs it.
Subcommand add_train_command(CLI::App& app) {
  auto options = std::make_shared<TrainCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "train",
      "Train a translation model (or, by the config's model.task, a cloze reader or a decoder-only language model): "
      "reads a YAML config (configs/README.md documents every key), writes a run folder "
      "(config, tokenizer, checkpoints, metrics.jsonl). Ctrl-C saves a checkpoint and stops; --resume continues "
      "(translation runs). "
      "Under mpirun -np N (a build with MPI) N processes share every batch: docs/guide/data-parallelism.md.");
  subcommand->add_option("--config", options->config, "The config file of a new run (e.g. configs/toy-en-fr.yaml)");
  subcommand->add_option("--run", options->run, "The folder to write the new run into (e.g. runs/toy-en-fr)");
  subcommand->add_option("--resume", options->resume, "Continue the run in this folder from its latest checkpoint");
  subcommand->add_option("--set", options->overrides,
                         "Override a config key, e.g. --set train.max_steps=100 (repeatable)");
  return {subcommand, [options] { return train_command(*options); }};
}

}  // namespace attnlab
