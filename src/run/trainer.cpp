// trainer.cpp — training the translation model. train() at the bottom is the table of contents; each step it
// lists is a function above it, in the same order; train_step() hands the next batches to the one training step
// (train/step.h), in the paper's order (§5.3–5.4), and the loop that calls it is training_loop.h's.
// trainer.h says what each does and the rules for resuming and stopping.
#include "run/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "data/batch_stream.h"
#include "data/batching.h"
#include "data/corpus.h"
#include "distributed/data_parallel.h"
#include "distributed/data_parallel_training.h"
#include "run/checkpoint_average.h"
#include "run/config_io.h"
#include "run/run.h"
#include "run/start_attempt.h"
#include "tensor/parallel.h"
#include "tensor/storage.h"
#include "train/checkpoint.h"
#include "train/optimizer.h"
#include "train/step.h"
#include "util/error.h"
#include "util/files.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---- 1. The run: its config, its folder, its threads ------------------------------------------------------

// A new run reads the config file (with the --set overrides); a resumed run reads the config.yaml in its folder.
RunConfig config_for(const TrainRequest& request) {
  namespace fs = std::filesystem;
  const std::string saved = request.run_dir + "/config.yaml";
  if (request.resume) {
    if (!path_exists(saved)) {
      throw Error("'" + request.run_dir +
                  "' is not a run folder (it has no config.yaml); start a run with "
                  "attnlab train --config FILE --run " +
                  request.run_dir);
    }
    return load_config(saved, request.overrides);
  }
  if (path_exists(saved)) {
    throw Error("'" + request.run_dir + "' already holds a run; continue it with attnlab train --resume " +
                request.run_dir + ", or choose another --run folder");
  }
  if (request.config_path.empty()) throw Error("attnlab train needs --config FILE (or --resume RUN_DIR)");
  return load_config(request.config_path, request.overrides);
}

// The config, the run folder (created if missing; config.yaml comes only once the run has started), the threads.
RunConfig set_up_run(const TrainRequest& request) {
  RunConfig config = config_for(request);
  if (config.model.task == Task::cloze) {  // a reader, not a translation model: another loop trains it
    throw Error("'" + (request.resume ? request.run_dir + "/config.yaml" : request.config_path) +
                "' is a cloze "
                "reader's config (model.task: cloze): train_cloze (cloze/cloze_training.h) trains it, as `attnlab "
                "train` does");
  }
  if (config.model.task == Task::language_model) {  // a decoder-only model: gpt/language_model.h trains it
    throw Error("'" + (request.resume ? request.run_dir + "/config.yaml" : request.config_path) +
                "' is a language "
                "model's config (model.task: language_model): train_language_model (gpt/language_model.h) trains "
                "it, as `attnlab train` does");
  }
  std::error_code error;
  std::filesystem::create_directories(request.run_dir, error);
  if (error || !std::filesystem::is_directory(request.run_dir)) {
    throw Error("cannot make the run folder '" + request.run_dir +
                "': " + (error ? error.message() : std::string("a file of that name is in the way")));
  }
  use_threads(threads_per_rank(config.train.threads));  // train.threads (shared among ranks: data_parallel.h)
  return config;
}

// ---- 2. The data: text, tokenizers, token ids -------------------------------------------------------------

struct TrainingData {
  RunTokenizers tokenizers;
  std::vector<EncodedPair> train_pairs;
  ParallelText valid_text;  // its target side: BLEU's references
  std::vector<EncodedPair> valid_pairs;
  std::vector<Batch> valid_batches;  // the same batches at every validation
};

std::vector<EncodedPair> encode_split(const RunConfig& config, const std::string& split, const ParallelText& text,
                                      const RunTokenizers& tok, TrainingObserver& observer) {
  int64_t too_long = 0;
  std::vector<EncodedPair> pairs = encode_pairs(text, *tok.src, *tok.tgt, config.data.max_len, &too_long);
  observer.on_message(split + ": " + std::to_string(pairs.size()) + " pairs (" + std::to_string(text.empty_skipped) +
                      " with an empty side skipped, " + std::to_string(too_long) +
                      " longer than data.max_len = " + std::to_string(config.data.max_len) + " tokens skipped)");
  return pairs;
}

// Training text first: the tokenizers are trained on it (or, when resuming, loaded from the run folder).
TrainingData load_data(const RunConfig& config, const std::string& run_dir, TrainingObserver& observer) {
  TrainingData data;
  const ParallelText train_text = load_split(config.data, "train");
  data.tokenizers = prepare_tokenizers(config, run_dir, train_text.src, train_text.tgt);
  data.train_pairs = encode_split(config, "train", train_text, data.tokenizers, observer);
  data.valid_text = load_split(config.data, "valid");
  data.valid_pairs = encode_split(config, "valid", data.valid_text, data.tokenizers, observer);
  if (data.train_pairs.empty()) {
    throw Error("no training pairs are left after filtering: check data.train_* and data.max_len");
  }
  data.valid_batches = fixed_batches(data.valid_pairs, config.train.batch_tokens);
  return data;
}

// ---- 3. The model, and what changes it --------------------------------------------------------------------

// What the run trains: the model and everything that moves its weights; a checkpoint holds all of it. learner() is
// the view of it that the training step (train/step.h) takes.
struct Trainee {
  std::unique_ptr<Seq2Seq> model;
  std::vector<NamedParameter> parameters;  // handles to every weight, named as in a PyTorch state dict
  Optimizer optimizer;                     // Adam(W), with its moments (with ZeRO, this rank's shard of them)
  Generator dropout_generator;             // draws every dropout mask
  DataParallelTraining ranks;              // this rank's place in the job: its shard of a batch, the sums
  const TrainConfig* train_config = nullptr;

  Learner learner() {
    return {*model, parameters, optimizer, dropout_generator, ranks, *train_config, model->config().d_model, {}};
  }
};

Trainee build_model(const RunConfig& config, const RunTokenizers& tokenizers, TrainingObserver& observer) {
  const ModelConfig model_config = model_config_for(config, tokenizers);
  check_model_fits_memory(model_config, 4, "training's weights, gradients and Adam's two moments");
  Generator init(config.train.seed);  // draws the initial weights
  auto model = std::make_unique<Seq2Seq>(model_config, init);
  std::vector<NamedParameter> parameters = model->named_parameters();
  Optimizer optimizer(parameters, config.train);
  observer.on_message("model: " + std::to_string(model->parameter_count()) + " parameters; vocabulary " +
                      std::to_string(model_config.src_vocab) + " → " + std::to_string(model_config.tgt_vocab));
  return {std::move(model),       std::move(parameters), std::move(optimizer), Generator(config.train.seed + 1),
          DataParallelTraining(), &config.train};
}

// ---- 4. Where the run is: a fresh start, or the latest checkpoint -----------------------------------------

// How far the run has come. With the Trainee, this is what a checkpoint holds.
struct Progress {
  int64_t step;                 // optimizer steps taken
  BatchStream<Batch> batches;   // the training batches: Batcher::epoch(e) for e = 0, 1, … (batch_stream.h)
  double best_valid_loss;       // the lowest so far (infinity before the first validation)
  std::string last_checkpoint;  // the last step checkpoint written, or resumed from ("" for none)
  int64_t last_saved_step;      // the step it holds (-1 for none)
  double seconds_before = 0;    // training seconds of the run's earlier starts (extra.train_milliseconds)
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();  // this (re)start

  // The run's training seconds so far, over all its starts: what train.schedule_by: time follows.
  double train_seconds() const { return seconds_before + seconds_since(started); }
};

// A fresh run starts at step 0 in epoch 0. A resumed one loads its latest checkpoint: the weights, the
// optimizer's moments, the dropout generator's state, the position in the epoch and the best validation loss.
Progress start_or_resume(const TrainRequest& request, const CheckpointDirectory& checkpoints, const Batcher& batcher,
                         Trainee& trainee, TrainingObserver& observer) {
  if (!request.resume) {
    return {0,   stream_of(batcher, 0, 0),        std::numeric_limits<double>::infinity(), "", -1,
            0.0, std::chrono::steady_clock::now()};
  }
  std::optional<std::string> latest = checkpoints.latest();
  if (!latest) throw Error("'" + request.run_dir + "' has no checkpoint to resume from");
  CheckpointState state = load_checkpoint(*latest, *trainee.model, &trainee.optimizer);
  // Every step draws at least one batch, so the epoch is at most the step; batch_in_epoch may equal the epoch's
  // batch count (the epoch is used up, the next step starts the next one).
  const int64_t epoch = checkpoint_extra_integer(*latest, state, "epoch", 0, state.step, ", at most the step");
  const int64_t batches = static_cast<int64_t>(batcher.batches_per_epoch());
  const int64_t batch_in_epoch = checkpoint_extra_integer(
      *latest, state, "batch_in_epoch", 0, batches,
      ", the batches in one epoch of this run's training data (" + std::to_string(batches) + ")");
  trainee.dropout_generator.set_state(state.generator_state);  // load_checkpoint has checked it parses
  observer.on_message("resuming from " + *latest + " at step " + std::to_string(state.step));
  // Checkpoints written before train_milliseconds was kept have none: their time counts as 0.
  const int64_t milliseconds =
      state.extra.count("train_milliseconds") == 0
          ? 0
          : checkpoint_extra_integer(*latest, state, "train_milliseconds", 0, INT64_MAX / 2, ", training time in ms");
  return {state.step,
          stream_of(batcher, epoch, batch_in_epoch),
          state.best_metric,
          *latest,
          state.step,
          1e-3 * static_cast<double>(milliseconds),
          std::chrono::steady_clock::now()};
}

// What a checkpoint holds besides the weights and the optimizer's moments (checkpoint.h).
CheckpointState checkpoint_state(const RunConfig& config, const Trainee& trainee, const Progress& progress) {
  CheckpointState state;
  state.step = progress.step;
  state.config_yaml = to_yaml(config);
  state.generator_state = trainee.dropout_generator.state();
  state.best_metric = progress.best_valid_loss;
  state.extra["epoch"] = std::to_string(progress.batches.epoch());
  state.extra["batch_in_epoch"] = std::to_string(progress.batches.batch_in_epoch());
  state.extra["train_milliseconds"] = std::to_string(std::llround(1e3 * progress.train_seconds()));
  return state;
}

// With several ranks (data_parallel_training.h), every rank starts from rank 0's weights, moments and place in
// the data, whatever N the run had when its checkpoint was written. One process: nothing to do.
void start_together(Trainee& trainee, Progress& progress, TrainingObserver& observer) {
  const RunPlace here{progress.step, progress.batches.epoch(), progress.batches.batch_in_epoch(),
                      progress.best_valid_loss};
  const std::optional<RunPlace> root =
      trainee.ranks.start_together(trainee.parameters, trainee.optimizer, trainee.dropout_generator, here, observer);
  if (!root) return;
  progress.step = root->step;
  progress.batches.move_to(root->epoch, root->batch_in_epoch);
  progress.best_valid_loss = root->best_valid_loss;
}

// ---- 5. One training step: train/step.h, on the next train.accumulate batches -----------------------------

// The run's training seconds as every rank agrees them (whole milliseconds, the most any rank has spent): with
// schedule_by: time the ranks must place the same learning rate, or their weights would drift apart.
double agreed_train_seconds(const Progress& progress) {
  const double milliseconds = std::min(1e3 * progress.train_seconds(), 2e9);
  return 1e-3 * collective::max(static_cast<int>(milliseconds));
}

StepResult train_step(Trainee& trainee, Progress& progress, const TrainConfig& tc) {
  BatchStream<Batch>& batches = progress.batches;
  Learner learner = trainee.learner();
  if (tc.schedule_by == ScheduleClock::time) {  // the schedule follows the time too (schedule.h)
    learner.train_seconds = [&progress] { return agreed_train_seconds(progress); };
  }
  const auto next_batch = [&](ForwardContext& ctx) {  // forward and loss of the next batch (step.h)
    return translation_part(*trainee.model, batches.next(), trainee.ranks, static_cast<real>(tc.label_smoothing), ctx);
  };
  return training_step(learner, next_batch, progress.step, progress.last_checkpoint);
}

// ---- 6. The loop (training_loop.h), and what it does after each step -------------------------------------

// What translation's side of the loop works with but does not replace, made by train() before the loop starts.
struct Run {
  const RunConfig& config;
  const TrainingData& data;
  Trainee& trainee;
  CheckpointDirectory& checkpoints;
  TrainingObserver& observer;
  const std::string& run_dir;
};

// Loss, perplexity and token accuracy on the validation batches; exact match and BLEU on train.valid_samples
// greedy translations (validation.h).
ValidationResult measure_validation(Run& run) {
  return run_validation(*run.trainee.model, run.data.valid_batches, run.data.valid_pairs,
                        run.config.train.valid_samples, run.config.decode, run.data.tokenizers.tgt.get(),
                        &run.data.valid_text.tgt);
}

// One validation as a line of metrics.jsonl.
void write_validation_line(TrainingRecords& records, int64_t step, const ValidationResult& validation) {
  records.write_line(nlohmann::json{{"type", "valid"},
                                    {"step", step},
                                    {"loss", validation.loss},
                                    {"perplexity", validation.perplexity},
                                    {"token_accuracy", validation.token_accuracy},
                                    {"exact_match", validation.exact_match},
                                    {"bleu", validation.bleu},
                                    {"elapsed_s", records.seconds()}}
                         .dump());
}

// Translation as the loop sees it: train_step() on the next batches, then validate_and_checkpoint().
class TranslationTraining : public TrainingTask {
 public:
  TranslationTraining(Run& run, Progress& progress, TrainingRecords& records)
      : run_(run), progress_(progress), records_(records) {}

  // Step progress.step, which the loop counts.
  StepResult step(int64_t /*step*/) override { return train_step(run_.trainee, progress_, run_.config.train); }
  int64_t epoch() const override { return progress_.batches.epoch(); }
  void validate_and_checkpoint(int64_t step, const Due& due) override;
  // With schedule_by: time the time limit is the run's, over all its starts, as its schedule is; else this start's.
  double seconds_spent(double this_start) const override {
    return run_.config.train.schedule_by == ScheduleClock::time ? progress_.train_seconds() : this_start;
  }
  int ranks() const override { return run_.trainee.ranks.ranks(); }
  double communication_seconds() const override { return run_.trainee.ranks.communication_seconds(); }

 private:
  Run& run_;
  Progress& progress_;
  TrainingRecords& records_;
};

// Every train.valid_every steps a validation, and best.safetensors when its loss is the lowest so far; every
// train.checkpoint_every steps a step checkpoint.
void TranslationTraining::validate_and_checkpoint(int64_t /*step: progress_.step*/, const Due& due) {
  Trainee& trainee = run_.trainee;
  const bool validate_now = due.validate && !run_.data.valid_batches.empty();
  if (!validate_now && !due.checkpoint) return;
  const std::optional<Optimizer> gathered = trainee.ranks.gather_optimizer(trainee.optimizer);  // ZeRO (best too)
  const Optimizer& optimizer = gathered ? *gathered : trainee.optimizer;
  if (!trainee.ranks.is_root()) return;  // rank 0 alone validates and writes (data_parallel.h)
  if (validate_now) {
    ValidationResult& validation = records_.summary.validation;
    validation = measure_validation(run_);
    const bool is_best = validation.loss < progress_.best_valid_loss;
    if (is_best) {
      progress_.best_valid_loss = validation.loss;
      run_.checkpoints.save_best(*trainee.model, optimizer, checkpoint_state(run_.config, trainee, progress_));
    }
    run_.observer.on_validation(progress_.step, validation, is_best);
    write_validation_line(records_, progress_.step, validation);
  }
  if (due.checkpoint) {
    progress_.last_checkpoint =
        run_.checkpoints.save_step(*trainee.model, optimizer, checkpoint_state(run_.config, trainee, progress_));
    progress_.last_saved_step = progress_.step;
  }
}

// Whatever ended the loop, the work so far is saved: a step checkpoint unless the last step already has one (the
// stop checkpoint: under half an interval after the last regular one, the run's checkpoint directory keeps the two
// as one stretch, train/checkpoint.h's count_as_one), and, when the run never validated, one validation and
// best.safetensors; with train.average_last, the average.
void save_before_leaving(Run& run, Progress& progress, TrainingRecords& records) {
  Trainee& trainee = run.trainee;
  const std::optional<Optimizer> gathered = trainee.ranks.gather_optimizer(trainee.optimizer);  // ZeRO: every rank
  const Optimizer& optimizer = gathered ? *gathered : trainee.optimizer;
  const bool writes = trainee.ranks.is_root();  // rank 0 alone writes (data_parallel.h)
  if (writes && progress.last_saved_step != progress.step) {
    progress.last_checkpoint =
        run.checkpoints.save_step(*trainee.model, optimizer, checkpoint_state(run.config, trainee, progress));
  }
  if (writes && !run.checkpoints.has_best() && !run.data.valid_batches.empty()) {
    records.summary.validation = measure_validation(run);
    progress.best_valid_loss = records.summary.validation.loss;
    run.checkpoints.save_best(*trainee.model, optimizer, checkpoint_state(run.config, trainee, progress));
    run.observer.on_validation(progress.step, records.summary.validation, true);
    write_validation_line(records, progress.step, records.summary.validation);  // in metrics.jsonl too
  }
  const int64_t kept = static_cast<int64_t>(run.checkpoints.step_files().size());
  if (writes && run.config.train.average_last > 0 && kept > 0) {  // train.average_last (checkpoint_average.h)
    const std::vector<std::string> last =
        last_checkpoints(run.run_dir, std::min(run.config.train.average_last, kept), run.config.train.checkpoint_every);
    average_checkpoints(last, average_checkpoint_path(run.run_dir));
    run.observer.on_message("averaged the last " + std::to_string(last.size()) + " checkpoints into " +
                            average_checkpoint_path(run.run_dir));
  }
  records.summary.step = progress.step;
  records.summary.checkpoint = progress.last_checkpoint;
  records.summary.seconds = records.seconds();
}

}  // namespace

TrainSummary train(const TrainRequest& request, TrainingObserver& observer) {
  reset_training_stop();
  // With several ranks (data_parallel.h) rank 0 alone starts the run folder; the others wait until it is made,
  // read its config.yaml and tokenizers as a resumed run would, and take the rest from rank 0 (start_together).
  const bool root = collective::rank() == 0;
  if (!root) collective::barrier();
  std::optional<StartAttempt> attempt;
  if (root) attempt.emplace(request.run_dir);  // until keep(), a failure removes what this start created
  const RunConfig config = set_up_run(root ? request : TrainRequest{"", request.run_dir, {}, /*resume=*/true});
  const TrainingData data = load_data(config, request.run_dir, observer);
  Trainee trainee = build_model(config, data.tokenizers, observer);
  const Batcher batcher(data.train_pairs, config.train.batch_tokens, config.train.seed);
  CheckpointDirectory checkpoints(checkpoints_dir(request.run_dir), config.train.keep_last,
                                  config.train.checkpoint_every);
  // The GEMM peak (for the MFU) before the run's clocks start: Progress's and TrainingRecords' count training only.
  const int threads = use_threads(threads_per_rank(config.train.threads));
  const Utilisation peak = request.measure_peak
                               ? measure_peak(collective::ranks(), threads, config.model.precision, observer)
                               : Utilisation{};
  Progress progress = start_or_resume(root ? request : TrainRequest{}, checkpoints, batcher, trainee, observer);
  if (root) {
    write_file_atomically(request.run_dir + "/config.yaml", to_yaml(config));  // the folder is now a run
    attempt->keep();
    collective::barrier();  // the other ranks may read it now
  }
  start_together(trainee, progress, observer);
  trainee.ranks.choose_summing(config.train, trainee.parameters, trainee.optimizer, observer);

  Run run{config, data, trainee, checkpoints, observer, request.run_dir};
  TrainingRecords records(request.run_dir, root);  // rank 0 alone writes metrics.jsonl
  records.utilisation = peak;
  TranslationTraining translation(run, progress, records);
  records.summary.outcome = train_until_stopped(translation, config.train, progress.step, records, observer);
  recycle_storage();  // the step's pooled buffers go back to the heap: what follows (evaluation, decoding) differs
  save_before_leaving(run, progress, records);
  return records.summary;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
