// cloze_training.cpp — a cloze reader's data, training loop, evaluation and loading (cloze_training.h).
#include "cloze/cloze_training.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "autograd/ops.h"
#include "data/cloze_question.h"
#include "data/corpus.h"
#include "train/checkpoint.h"
#include "run/start_attempt.h"
#include "train/step.h"
#include "run/config_io.h"
#include "distributed/data_parallel.h"
#include "train/optimizer.h"
#include "train/schedule.h"
#include "util/error.h"
#include "util/files.h"
#include "util/suggest.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The config a request names: its file with the overrides, or on --resume the run folder's config.yaml.
std::string config_path_of(const TrainRequest& request) {
  return request.resume ? request.run_dir + "/config.yaml" : request.config_path;
}

// Questions [first, first + count) of `examples` in the order `order`, as one batch.
ClozeBatch batch_of(const std::vector<ClozeExample>& examples, const std::vector<size_t>& order, size_t first,
                    size_t count) {
  std::vector<ClozeExample> rows;
  for (size_t k = first; k < std::min(first + count, order.size()); ++k) rows.push_back(examples[order[k]]);
  return make_cloze_batch(rows);
}

std::vector<size_t> in_order(size_t n) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  return order;
}

}  // namespace

ClozeSplit load_cloze_split(const RunConfig& config, const Tokenizer& tokenizer, const std::string& split) {
  const ParallelText text = load_split(config.data, split);
  ClozeSplit result;
  result.description = text.description;
  for (size_t i = 0; i < text.src.size(); ++i) {
    const std::string where = "question " + std::to_string(i + 1) + " of " + text.description;
    ClozeQuestion question = split_cloze_question(text.src[i], where);
    ClozeExample example;
    example.document = tokenizer.encode(join(question.document, " "));
    example.query = tokenizer.encode(join(question.query, " "));
    const auto placeholder = std::find(question.query.begin(), question.query.end(), cloze_placeholder);
    example.placeholder = placeholder - question.query.begin();
    const std::vector<int32_t> answer = tokenizer.encode(text.tgt[i]);
    if (example.document.size() != question.document.size() || example.query.size() != question.query.size()) {
      throw Error(where + ": the word tokenizer must give one id per word; is tokenizer.kind word?");
    }
    if (answer.size() != 1 || answer[0] == unk_id ||
        std::find(example.document.begin(), example.document.end(), answer[0]) == example.document.end()) {
      throw Error(where + ": the answer '" + text.tgt[i] + "' must be one word that occurs in the document (a "
                  "reader can only point at document words)");
    }
    example.answer = answer[0];
    result.examples.push_back(std::move(example));
    result.documents.push_back(std::move(question.document));
    result.answers.push_back(text.tgt[i]);
  }
  return result;
}

double answer_accuracy(const std::vector<int32_t>& predicted, const std::vector<int32_t>& answers) {
  if (predicted.size() != answers.size()) {
    throw Error("answer_accuracy: " + std::to_string(predicted.size()) + " predictions for " +
                std::to_string(answers.size()) + " answers");
  }
  if (answers.empty()) return 0;
  int64_t right = 0;
  for (size_t i = 0; i < answers.size(); ++i) right += predicted[i] == answers[i];
  return static_cast<double>(right) / static_cast<double>(answers.size());
}

ClozeScore evaluate_cloze(ClozeReader& reader, const ClozeSplit& split, int64_t batch_questions) {
  NoGradGuard no_grad;
  ForwardContext ctx;                                                    // not training: no dropout
  const std::vector<size_t> order = in_order(split.examples.size());
  ClozeScore score;
  score.questions = static_cast<int64_t>(split.examples.size());
  if (score.questions == 0) return score;
  std::vector<int32_t> predicted, answers;
  double loss_sum = 0;
  for (size_t first = 0; first < order.size(); first += static_cast<size_t>(batch_questions)) {
    const ClozeBatch batch = batch_of(split.examples, order, first, static_cast<size_t>(batch_questions));
    loss_sum += reader.loss(batch, ctx).item() * static_cast<double>(batch.answer.size());
    for (int32_t id : predicted_answers(reader.answer_distribution(batch, ctx), batch)) predicted.push_back(id);
    answers.insert(answers.end(), batch.answer.begin(), batch.answer.end());
  }
  score.loss = loss_sum / static_cast<double>(score.questions);
  score.accuracy = answer_accuracy(predicted, answers);
  int64_t baseline_right = 0;
  for (size_t i = 0; i < split.documents.size(); ++i) {
    baseline_right += cloze_frequency_baseline(split.documents[i]) == split.answers[i];
  }
  score.frequency_baseline = static_cast<double>(baseline_right) / static_cast<double>(score.questions);
  return score;
}

bool is_cloze_request(const TrainRequest& request) {
  const std::string path = config_path_of(request);
  if (path.empty() || !fs::exists(path)) return false;
  return load_config(path, request.overrides).model.task == "cloze";
}

bool is_cloze_run(const std::string& run_dir) {
  const std::string path = run_dir + "/config.yaml";
  return fs::exists(path) && load_config(path).model.task == "cloze";
}

TrainSummary train_cloze(const TrainRequest& request, TrainingObserver& observer) {
  reset_training_stop();
  StartAttempt attempt(request.run_dir);        // until keep(), a failure removes what this start created
  // The run: a new folder only (a short run restarts in minutes), one process.
  // Not resumable: the reader's checkpoints keep the weights and Adam's moments but not the shuffle generator's
  // state nor the place in the epoch, so a resumed run could not draw the batches it would have drawn.
  if (request.resume) {
    throw Error("'" + request.run_dir + "' is a cloze run, and --resume is not supported for cloze readers (their "
                "checkpoints do not keep the shuffle's state and the place in the epoch, so a resumed run would "
                "not see the batches an unstopped one sees; a run takes minutes); start a new run with attnlab "
                "train --config FILE --run NEW_DIR");
  }
  // One process: the readers' loop has no sharding of batches nor summing of gradients across ranks.
  if (collective::ranks() > 1) {
    throw Error("cloze readers train in one process (their training loop does not split batches across ranks); "
                "run attnlab train without mpirun");
  }
  if (fs::exists(request.run_dir + "/config.yaml")) {
    throw Error("'" + request.run_dir + "' already holds a run; choose another --run folder");
  }
  const RunConfig config = load_config(request.config_path, request.overrides);
  const TrainConfig& tc = config.train;
  fs::create_directories(request.run_dir);
  use_threads(tc.threads);

  // The data: the tokenizer learns the training questions' and answers' words; then ids.
  const ParallelText train_text = load_split(config.data, "train");
  const RunTokenizers tokenizers = prepare_tokenizers(config, request.run_dir, train_text.src, train_text.tgt);
  const ClozeSplit train_split = load_cloze_split(config, *tokenizers.src, "train");
  const ClozeSplit valid_split = load_cloze_split(config, *tokenizers.src, "valid");
  size_t longest = 1;
  for (const ClozeExample& e : train_split.examples) longest = std::max(longest, e.document.size() + e.query.size());
  const size_t batch_questions = std::max<size_t>(1, static_cast<size_t>(tc.batch_tokens) / longest);

  // The model, the optimizer, the dropout generator.
  const ModelConfig model_config = model_config_for(config, tokenizers);
  Generator init(tc.seed);
  ClozeReader reader(model_config, init);
  const std::vector<NamedParameter> parameters = reader.named_parameters();
  Optimizer optimizer(parameters, tc);
  Generator dropout_generator(tc.seed + 1), shuffle(tc.seed + 2);
  observer.on_message("cloze reader (" + model_config.reader + "): " + std::to_string(reader.parameter_count()) +
                      " parameters; vocabulary " + std::to_string(model_config.src_vocab) + "; " +
                      std::to_string(train_split.examples.size()) + " training questions, " +
                      std::to_string(batch_questions) + " per batch");
  write_file_atomically(request.run_dir + "/config.yaml", to_yaml(config));
  attempt.keep();                                                      // the folder is a run now: keep it
  CheckpointDirectory checkpoints(checkpoints_dir(request.run_dir), tc.keep_last);
  std::ofstream metrics(request.run_dir + "/metrics.jsonl", std::ios::app);

  CheckpointState state;
  state.config_yaml = to_yaml(config);
  state.best_metric = std::numeric_limits<double>::infinity();
  TrainSummary summary;
  const auto started = std::chrono::steady_clock::now();
  std::vector<size_t> order = in_order(train_split.examples.size());
  size_t next = order.size();                                          // start with a shuffle
  int64_t epoch = -1, tokens_seen = 0;
  int64_t step = 0;
  // The step's parts (train/step.h): the next batch of questions, in a new order every epoch; loss = −mean log
  // P(answer) (cloze_reader.h). One process: a plain Ranks.
  Ranks one_process;
  Learner learner{reader, parameters, optimizer, dropout_generator, one_process, tc, model_config.d_model};
  const auto next_questions = [&](ForwardContext& ctx) {
    if (next >= order.size()) {                                        // a new epoch, a new order
      for (size_t i = order.size() - 1; i > 0; --i) {
        std::swap(order[i], order[static_cast<size_t>(shuffle.integer(0, static_cast<int64_t>(i) + 1))]);
      }
      next = 0;
      ++epoch;
    }
    const ClozeBatch batch = batch_of(train_split.examples, order, next, batch_questions);
    next += batch_questions;
    PartLoss part;
    part.loss = reader.loss(batch, ctx);                                // [1]
    part.value = part.loss.item();
    part.tokens = batch.document.shape.numel() + batch.query.shape.numel();
    return part;
  };
  for (; step < tc.max_steps; ) {
    if (training_stop_requested()) {
      summary.outcome = TrainOutcome::interrupted;
      break;
    }
    if (tc.max_minutes > 0 && seconds_since(started) > tc.max_minutes * 60) {
      summary.outcome = TrainOutcome::time_limit;
      break;
    }
    ++step;
    const StepResult result = training_step(learner, next_questions, step);   // the one training step
    const double value = result.loss, grad_norm = result.grad_norm, lr = result.learning_rate;
    summary.losses.push_back(value);
    tokens_seen += result.tokens;

    StepReport report;
    report.step = step;
    report.max_steps = tc.max_steps;
    report.loss = value;
    report.learning_rate = lr;
    report.grad_norm = grad_norm;
    report.elapsed_seconds = seconds_since(started);
    report.tokens_per_second = static_cast<double>(tokens_seen) / std::max(report.elapsed_seconds, 1e-9);
    report.epoch = epoch;
    report.log_every = tc.log_every;
    report.time_limit_seconds = tc.max_minutes * 60;
    observer.on_step(report);
    if (tc.log_every > 0 && step % tc.log_every == 0) {
      metrics << nlohmann::json{{"type", "train"}, {"step", step}, {"loss", value}, {"lr", lr},
                                {"grad_norm", grad_norm}, {"elapsed_s", report.elapsed_seconds}, {"epoch", epoch}}
                     .dump()
              << "\n" << std::flush;
    }
    const bool last = step == tc.max_steps;
    if ((tc.valid_every > 0 && step % tc.valid_every == 0) || last) {
      const ClozeScore valid = evaluate_cloze(reader, valid_split);
      const bool best = valid.loss < state.best_metric;
      state.step = step;
      if (best) {
        state.best_metric = valid.loss;
        checkpoints.save_best(reader, optimizer, state);
      }
      observer.on_message("validation at step " + std::to_string(step) + ": loss " + std::to_string(valid.loss) +
                          "  accuracy " + std::to_string(100 * valid.accuracy) + "% (" +
                          std::to_string(valid.questions) + " questions; most frequent noun " +
                          std::to_string(100 * valid.frequency_baseline) + "%)" + (best ? "  — best so far, saved" : ""));
      metrics << nlohmann::json{{"type", "valid"}, {"step", step}, {"loss", valid.loss},
                                {"accuracy", valid.accuracy}, {"frequency_baseline", valid.frequency_baseline},
                                {"elapsed_s", seconds_since(started)}}
                     .dump()
              << "\n" << std::flush;
    }
  }
  state.step = step;
  if (!checkpoints.has_best()) checkpoints.save_best(reader, optimizer, state);
  summary.step = step;
  summary.checkpoint = checkpoints.save_step(reader, optimizer, state);
  summary.seconds = seconds_since(started);
  return summary;
}

LoadedClozeRun load_cloze_run(const std::string& run_dir, const std::string& which) {
  LoadedClozeRun run;
  run.config = load_run_config(run_dir);
  if (run.config.model.task != "cloze") {
    throw Error("'" + run_dir + "' is a " + run.config.model.task + " run, not a cloze reader (model.task)");
  }
  run.tokenizers = load_run_tokenizers(run.config, run_dir);
  Generator init(run.config.train.seed);
  run.reader = std::make_unique<ClozeReader>(model_config_for(run.config, run.tokenizers), init);
  run.checkpoint_path = checkpoint_to_load(run.config, run_dir, which);
  run.step = load_checkpoint(run.checkpoint_path, *run.reader, nullptr).step;
  return run;
}

ClozeBatch cloze_question_batch(const LoadedClozeRun& run, const std::string& line, const std::string& where) {
  const ClozeQuestion question = split_cloze_question(clean_like_training(run.config, line), where);
  ClozeExample example;
  example.document = run.tokenizers.src->encode(join(question.document, " "));
  example.query = run.tokenizers.src->encode(join(question.query, " "));
  example.placeholder = std::find(question.query.begin(), question.query.end(), cloze_placeholder) -
                        question.query.begin();
  example.answer = example.document.front();                          // unknown here; unused by the pictures
  return make_cloze_batch({example});
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
