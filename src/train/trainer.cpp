// trainer.cpp — the training loop (see trainer.h for the step, resume and stop rules).
#include "train/trainer.h"

#include <omp.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <thread>

#include "autograd/ops.h"
#include "data/batching.h"
#include "data/corpus.h"
#include "tensor/error.h"
#include "tensor/storage.h"
#include "train/checkpoint.h"
#include "train/clip.h"
#include "train/config_io.h"
#include "train/optimizer.h"
#include "train/run.h"
#include "train/schedule.h"
#include "util/files.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

// Set from a signal handler: a lock-free atomic store is one of the few things a handler may do.
std::atomic<int> stop_requested{0};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

RunConfig config_for(const TrainRequest& request) {
  namespace fs = std::filesystem;
  const std::string saved = request.run_dir + "/config.yaml";
  if (request.resume) {
    if (!fs::exists(saved)) {
      throw Error("'" + request.run_dir + "' is not a run folder (it has no config.yaml); start a run with "
                  "attnlab train --config FILE --run " + request.run_dir);
    }
    return load_config(saved, request.overrides);
  }
  if (fs::exists(saved)) {
    throw Error("'" + request.run_dir + "' already holds a run; continue it with attnlab train --resume " +
                request.run_dir + ", or choose another --run folder");
  }
  if (request.config_path.empty()) throw Error("attnlab train needs --config FILE (or --resume RUN_DIR)");
  return load_config(request.config_path, request.overrides);
}

std::vector<EncodedPair> encode_split(const RunConfig& config, const std::string& split, const ParallelText& text,
                                      const RunTokenizers& tok, TrainingObserver& observer) {
  int64_t too_long = 0;
  std::vector<EncodedPair> pairs = encode_pairs(text, *tok.src, *tok.tgt, config.data.max_len, &too_long);
  observer.on_message(split + ": " + std::to_string(pairs.size()) + " pairs (" +
                      std::to_string(text.empty_skipped) + " with an empty side skipped, " +
                      std::to_string(too_long) + " longer than data.max_len = " +
                      std::to_string(config.data.max_len) + " tokens skipped)");
  return pairs;
}

}  // namespace

void request_training_stop(int signal_number) { stop_requested.store(signal_number); }

int use_threads(int64_t requested) {
  int threads = requested > 0 ? static_cast<int>(requested)
                              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  omp_set_num_threads(threads);
  Eigen::setNbThreads(threads);
  return threads;
}

TrainSummary train(const TrainRequest& request, TrainingObserver& observer) {
  namespace fs = std::filesystem;
  stop_requested.store(0);
  RunConfig config = config_for(request);
  const TrainConfig& tc = config.train;
  fs::create_directories(checkpoints_dir(request.run_dir));
  write_file_atomically(request.run_dir + "/config.yaml", to_yaml(config));
  use_threads(tc.threads);

  // ---- data and tokenizers ----
  ParallelText train_text = load_split(config.data, "train");
  RunTokenizers tokenizers = prepare_tokenizers(config, request.run_dir, train_text.src, train_text.tgt);
  std::vector<EncodedPair> train_pairs = encode_split(config, "train", train_text, tokenizers, observer);
  const ParallelText valid_text = load_split(config.data, "valid");  // its target side: BLEU's references
  std::vector<EncodedPair> valid_pairs = encode_split(config, "valid", valid_text, tokenizers, observer);
  if (train_pairs.empty()) throw Error("no training pairs are left after filtering: check data.train_* and data.max_len");

  // ---- model, optimizer, random generators ----
  ModelConfig model_config = model_config_for(config, tokenizers);
  Generator init(tc.seed);
  Seq2Seq model(model_config, init);
  std::vector<NamedParameter> parameters = model.named_parameters();
  Optimizer optimizer(parameters, tc);
  Generator dropout_generator(tc.seed + 1);
  observer.on_message("model: " + std::to_string(model.parameter_count()) + " parameters; vocabulary " +
                      std::to_string(model_config.src_vocab) + " → " + std::to_string(model_config.tgt_vocab));

  Batcher batcher(train_pairs, tc.batch_tokens, tc.seed);
  std::vector<Batch> valid_batches = fixed_batches(valid_pairs, tc.batch_tokens);
  CheckpointDirectory checkpoints(checkpoints_dir(request.run_dir), tc.keep_last);

  // ---- where we are: a fresh start, or the latest checkpoint ----
  int64_t step = 0, epoch = 0, batch_in_epoch = 0;
  double best_valid_loss = std::numeric_limits<double>::infinity();
  std::string resumed_from;  // the checkpoint a resumed run starts from: its last one until it writes another
  if (request.resume) {
    std::optional<std::string> latest = checkpoints.latest();
    if (!latest) throw Error("'" + request.run_dir + "' has no checkpoint to resume from");
    resumed_from = *latest;
    CheckpointState state = load_checkpoint(*latest, model, &optimizer);
    step = state.step;
    dropout_generator.set_state(state.generator_state);
    epoch = std::stoll(state.extra.at("epoch"));
    batch_in_epoch = std::stoll(state.extra.at("batch_in_epoch"));
    best_valid_loss = state.best_metric;
    observer.on_message("resuming from " + *latest + " at step " + std::to_string(step));
  }
  std::vector<Batch> epoch_batches = batcher.epoch(epoch);

  auto checkpoint_state = [&]() {
    CheckpointState state;
    state.step = step;
    state.config_yaml = to_yaml(config);
    state.generator_state = dropout_generator.state();
    state.best_metric = best_valid_loss;
    state.extra["epoch"] = std::to_string(epoch);
    state.extra["batch_in_epoch"] = std::to_string(batch_in_epoch);
    return state;
  };

  std::ofstream metrics(request.run_dir + "/metrics.jsonl", std::ios::app);
  TrainSummary summary;
  summary.checkpoint = resumed_from;
  const auto started = std::chrono::steady_clock::now();
  int64_t tokens_seen = 0, last_saved_step = request.resume ? step : -1;

  while (step < tc.max_steps) {
    if (stop_requested.load() != 0) {
      summary.outcome = TrainOutcome::interrupted;
      break;
    }
    if (tc.max_minutes > 0 && seconds_since(started) > tc.max_minutes * 60) {
      summary.outcome = TrainOutcome::time_limit;
      break;
    }
    ++step;
    const double lr = learning_rate(tc, step, model_config.d_model);
    model.zero_grad();
    double step_loss = 0;
    for (int64_t part = 0; part < tc.accumulate; ++part) {
      if (batch_in_epoch >= static_cast<int64_t>(epoch_batches.size())) {   // next epoch: a new shuffle
        ++epoch;
        batch_in_epoch = 0;
        epoch_batches = batcher.epoch(epoch);
      }
      const Batch& batch = epoch_batches[static_cast<size_t>(batch_in_epoch++)];
      ForwardContext ctx{/*training=*/true, &dropout_generator, /*recorder=*/nullptr};
      Tensor loss = model.loss(batch.src, batch.tgt_in, batch.targets,            // [1], no [B, T, V] logits kept
                               static_cast<real>(tc.label_smoothing), ctx);
      const double value = loss.item();
      if (!std::isfinite(value)) {
        throw Error("the training loss became " + std::string(std::isnan(value) ? "NaN" : "infinite") +
                    " at step " + std::to_string(step) + "; stopping. The last good checkpoint is " +
                    (summary.checkpoint.empty() ? std::string("(none yet)") : summary.checkpoint) +
                    ". Try a lower train.lr, more train.warmup_steps or train.clip_norm");
      }
      if (tc.accumulate > 1) loss = scale(loss, static_cast<real>(1.0 / double(tc.accumulate)));
      loss.backward();                                   // gradients add up over the accumulated batches
      step_loss += value / static_cast<double>(tc.accumulate);
      tokens_seen += batch.src_tokens + batch.tgt_tokens;
    }
    const double grad_norm = clip_grad_norm(parameters, tc.clip_norm);
    if (!std::isfinite(grad_norm)) {
      throw Error("the gradient norm became " + std::string(std::isnan(grad_norm) ? "NaN" : "infinite") +
                  " at step " + std::to_string(step) + "; stopping. The last good checkpoint is " +
                  (summary.checkpoint.empty() ? std::string("(none yet)") : summary.checkpoint));
    }
    optimizer.step(lr);
    summary.losses.push_back(step_loss);

    StepReport report;
    report.step = step;
    report.max_steps = tc.max_steps;
    report.loss = step_loss;
    report.learning_rate = lr;
    report.grad_norm = grad_norm;
    report.elapsed_seconds = seconds_since(started);
    report.tokens_per_second = static_cast<double>(tokens_seen) / std::max(report.elapsed_seconds, 1e-9);
    report.epoch = epoch;
    report.log_every = tc.log_every;
    report.time_limit_seconds = tc.max_minutes * 60;
    observer.on_step(report);
    if (tc.log_every > 0 && step % tc.log_every == 0) {
      metrics << nlohmann::json{{"type", "train"}, {"step", step}, {"loss", step_loss}, {"lr", lr},
                                {"grad_norm", grad_norm}, {"tokens_per_s", report.tokens_per_second},
                                {"elapsed_s", report.elapsed_seconds}, {"epoch", epoch}}.dump()
              << "\n" << std::flush;
    }

    const bool validate_now = tc.valid_every > 0 && step % tc.valid_every == 0 && !valid_batches.empty();
    if (validate_now) {
      summary.validation = validate(model, valid_batches, valid_pairs, tc.valid_samples, config.decode,
                                  tokenizers.tgt.get(), &valid_text.tgt);
      const bool is_best = summary.validation.loss < best_valid_loss;
      if (is_best) {
        best_valid_loss = summary.validation.loss;
        checkpoints.save_best(model, optimizer, checkpoint_state());
      }
      observer.on_validation(step, summary.validation, is_best);
      metrics << nlohmann::json{{"type", "valid"}, {"step", step}, {"loss", summary.validation.loss},
                                {"perplexity", summary.validation.perplexity},
                                {"token_accuracy", summary.validation.token_accuracy},
                                {"exact_match", summary.validation.exact_match},
                                {"bleu", summary.validation.bleu},
                                {"elapsed_s", seconds_since(started)}}.dump()
              << "\n" << std::flush;
    }
    if (tc.checkpoint_every > 0 && step % tc.checkpoint_every == 0) {
      summary.checkpoint = checkpoints.save_step(model, optimizer, checkpoint_state());
      last_saved_step = step;
    }
  }

  trim_storage();  // the step's pooled buffers go back to the system: what follows (evaluation, decoding) differs

  // Whatever ended the loop, the work so far is saved.
  if (last_saved_step != step) summary.checkpoint = checkpoints.save_step(model, optimizer, checkpoint_state());
  if (!checkpoints.has_best() && !valid_batches.empty()) {
    summary.validation = validate(model, valid_batches, valid_pairs, tc.valid_samples, config.decode,
                                  tokenizers.tgt.get(), &valid_text.tgt);
    best_valid_loss = summary.validation.loss;
    checkpoints.save_best(model, optimizer, checkpoint_state());
    observer.on_validation(step, summary.validation, true);
  }
  summary.step = step;
  summary.seconds = seconds_since(started);
  return summary;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
