// training_loop.cpp — the loop of training_loop.h: train_until_stopped() at the bottom, and what it does after each
// step (report_step) above it; the stop request a signal handler leaves for it at the top.
#include "run/training_loop.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "distributed/data_parallel.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// Set from a signal handler: a lock-free atomic store is one of the few things a handler may do.
std::atomic<int> stop_requested{0};

// The observer hears of every step; metrics.jsonl gets a line every train.log_every steps.
void report_step(const TrainingTask& task, const TrainConfig& tc, int64_t step, const StepResult& result,
                 TrainingRecords& records, TrainingObserver& observer) {
  StepReport report;
  report.step = step;
  report.max_steps = tc.max_steps;
  report.loss = result.loss;
  report.learning_rate = result.learning_rate;
  report.grad_norm = result.grad_norm;
  report.elapsed_seconds = records.seconds();
  report.tokens_per_second = static_cast<double>(records.tokens_seen) / std::max(report.elapsed_seconds, 1e-9);
  report.epoch = task.epoch();
  report.log_every = tc.log_every;
  report.time_limit_seconds = tc.max_minutes * 60;
  report.ranks = task.ranks();
  report.communication_seconds = task.communication_seconds();
  records.utilisation.add(result.flops, result.forward_seconds + result.backward_seconds + result.update_seconds);
  report.mfu = records.utilisation.mfu();
  observer.on_step(report);
  if (tc.log_every > 0 && step % tc.log_every == 0) {
    nlohmann::json line{{"type", "train"}, {"step", step}, {"loss", result.loss}, {"lr", result.learning_rate},
                        {"grad_norm", result.grad_norm}, {"elapsed_s", report.elapsed_seconds},
                        {"epoch", report.epoch}};
    if (task.logs_tokens_per_second()) line["tokens_per_s"] = report.tokens_per_second;
    if (report.mfu > 0) line["mfu"] = report.mfu;
    records.write_line(line.dump());
  }
}

}  // namespace

TrainingRecords::TrainingRecords(const std::string& run_dir, bool writes) {
  if (writes) metrics_.open(run_dir + "/metrics.jsonl", std::ios::app);
}

void TrainingRecords::write_line(const std::string& json) { metrics_ << json << "\n" << std::flush; }

double TrainingRecords::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

Utilisation measure_peak(int ranks, int threads, Precision precision, TrainingObserver& observer) {
  Utilisation utilisation;
  utilisation.peak_gflops = measure_gemm_gflops(1024, 3, precision);
  utilisation.ranks = ranks;
  char line[200];
  std::snprintf(line, sizeof line,
                "GEMM peak %.1f GFLOP/s on %d thread%s (1024 × 1024 products%s): the MFU below "
                "is the steps' matrix work over it",
                utilisation.peak_gflops, threads, threads == 1 ? "" : "s",
                precision == Precision::float32 ? "" : (", " + name_of(precision)).c_str());
  observer.on_message(line);
  return utilisation;
}

TrainOutcome train_until_stopped(TrainingTask& task, const TrainConfig& tc, int64_t& step, TrainingRecords& records,
                                 TrainingObserver& observer) {
  while (step < tc.max_steps) {
    // 2: a stop request, 1: the time limit, 0: go on. All ranks must stop after the same step (or one would wait
    // forever in the next all-reduce), so the most pressing reason any rank has counts (one process: its own).
    const double spent = task.seconds_spent(records.seconds());
    const bool out_of_time = tc.max_minutes > 0 && spent > tc.max_minutes * 60;
    const int stop = collective::max(stop_requested.load() != 0 ? 2 : out_of_time ? 1 : 0);
    if (stop == 2) return TrainOutcome::interrupted;
    if (stop == 1) return TrainOutcome::time_limit;
    ++step;
    const StepResult result = task.step(step);
    records.summary.losses.push_back(result.loss);
    records.tokens_seen += result.tokens;
    report_step(task, tc, step, result, records, observer);
    const Due due{tc.valid_every > 0 && step % tc.valid_every == 0,
                  tc.checkpoint_every > 0 && step % tc.checkpoint_every == 0};
    task.validate_and_checkpoint(step, due);
  }
  return TrainOutcome::finished;
}

void request_training_stop(int signal_number) { stop_requested.store(signal_number); }
void reset_training_stop() { stop_requested.store(0); }

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
