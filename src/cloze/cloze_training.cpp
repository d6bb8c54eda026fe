// cloze_training.cpp — a cloze reader's data, training, evaluation and loading (cloze_training.h); the training
// loop is the translation model's (run/training_loop.h), on a reader's batches and validation.
#include "cloze/cloze_training.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "autograd/ops.h"
#include "data/batch_stream.h"
#include "data/batching.h"
#include "data/corpus.h"
#include "data/synthetic/cloze_question.h"
#include "distributed/data_parallel.h"
#include "run/config_io.h"
#include "run/start_attempt.h"
#include "run/training_loop.h"
#include "tensor/parallel.h"
#include "train/checkpoint.h"
#include "train/optimizer.h"
#include "train/step.h"
#include "util/error.h"
#include "util/files.h"
#include "util/suggest.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace fs = std::filesystem;

namespace {

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
  if (path.empty() || !path_exists(path)) return false;
  return load_config(path, request.overrides).model.task == Task::cloze;
}

bool is_cloze_run(const std::string& run_dir) {
  const std::string path = run_dir + "/config.yaml";
  return path_exists(path) && load_config(path).model.task == Task::cloze;
}

namespace {

// Questions a training batch holds: train.batch_tokens / the longest training question's words (document +
// query, what every question of a batch is padded to), at least 1.
size_t questions_per_batch(const std::vector<ClozeExample>& examples, int64_t batch_tokens) {
  size_t longest = 1;
  for (const ClozeExample& e : examples) longest = std::max(longest, e.document.size() + e.query.size());
  return std::max<size_t>(1, static_cast<size_t>(batch_tokens) / longest);
}

// The training questions, batch after batch, shuffled anew each epoch (data/batch_stream.h).
BatchStream<ClozeBatch> question_stream(const std::vector<ClozeExample>& examples, size_t per_batch, uint64_t seed) {
  return shuffled_batches<ClozeBatch>(examples.size(), per_batch, seed,
                                      [&examples](const std::vector<size_t>& order, size_t first, size_t count) {
                                        return batch_of(examples, order, first, count);
                                      });
}

// The reader, what moves its weights, and where the run writes.
struct ClozeRun {
  const RunConfig& config;
  ClozeReader& reader;
  Learner& learner;                                                    // the reader as the step sees it (step.h)
  BatchStream<ClozeBatch>& questions;
  const ClozeSplit& valid_split;
  CheckpointDirectory checkpoints;
  CheckpointState state;
  TrainingRecords records;                                             // RUN/metrics.jsonl
  TrainingObserver& observer;
};

// Accuracy and loss on the validation questions; best.safetensors when the loss is the lowest so far.
void validate_cloze(ClozeRun& run, int64_t step) {
  const ClozeScore valid = evaluate_cloze(run.reader, run.valid_split);
  const bool best = valid.loss < run.state.best_metric;
  run.state.step = step;
  if (best) {
    run.state.best_metric = valid.loss;
    run.checkpoints.save_best(run.reader, run.learner.optimizer, run.state);
  }
  run.observer.on_message("validation at step " + std::to_string(step) + ": loss " + std::to_string(valid.loss) +
                          "  accuracy " + std::to_string(100 * valid.accuracy) + "% (" +
                          std::to_string(valid.questions) + " questions; most frequent noun " +
                          std::to_string(100 * valid.frequency_baseline) + "%)" +
                          (best ? "  — best so far, saved" : ""));
  run.records.write_line(nlohmann::json{{"type", "valid"}, {"step", step}, {"loss", valid.loss},
                                        {"accuracy", valid.accuracy},
                                        {"frequency_baseline", valid.frequency_baseline},
                                        {"elapsed_s", run.records.seconds()}}
                             .dump());
}

// A cloze reader as the loop (run/training_loop.h) sees it: loss = −mean log P(answer) of the next questions.
class ClozeTraining : public TrainingTask {
 public:
  explicit ClozeTraining(ClozeRun& run) : run_(run) {}

  StepResult step(int64_t step) override {
    const auto next_questions = [this](ForwardContext& ctx) {
      const ClozeBatch& batch = run_.questions.next();
      PartLoss part;
      part.loss = run_.reader.loss(batch, ctx);                      // [1]
      part.value = part.loss.item();
      part.tokens = batch.document.shape.numel() + batch.query.shape.numel();
      return part;
    };
    return training_step(run_.learner, next_questions, step);
  }
  int64_t epoch() const override { return run_.questions.epoch(); }
  // A validation every train.valid_every steps and after the last one. No step checkpoints on the way
  // (train.checkpoint_every is not read): a cloze run is not resumed, and train_cloze() saves one at its end.
  void validate_and_checkpoint(int64_t step, const Due& due) override {
    if (due.validate || step == run_.config.train.max_steps) validate_cloze(run_, step);
  }
  bool logs_tokens_per_second() const override { return false; }

 private:
  ClozeRun& run_;
};

}  // namespace

TrainSummary train_cloze(const TrainRequest& request, TrainingObserver& observer) {
  reset_training_stop();
  StartAttempt attempt(request.run_dir);        // until keep(), a failure removes what this start created
  refuse_short_run_request(request, "a cloze run", "cloze readers");   // run/start_attempt.h
  const RunConfig config = load_config(request.config_path, request.overrides);
  const TrainConfig& tc = config.train;
  fs::create_directories(request.run_dir);
  use_threads(tc.threads);

  // The data: the tokenizer learns the training questions' and answers' words; then ids.
  const ParallelText train_text = load_split(config.data, "train");
  const RunTokenizers tokenizers = prepare_tokenizers(config, request.run_dir, train_text.src, train_text.tgt);
  const ClozeSplit train_split = load_cloze_split(config, *tokenizers.src, "train");
  const ClozeSplit valid_split = load_cloze_split(config, *tokenizers.src, "valid");
  const size_t per_batch = questions_per_batch(train_split.examples, tc.batch_tokens);
  BatchStream<ClozeBatch> questions = question_stream(train_split.examples, per_batch, tc.seed + 2);

  // The model, the optimizer, the dropout generator.
  const ModelConfig model_config = model_config_for(config, tokenizers);
  Generator init(tc.seed), dropout_generator(tc.seed + 1);
  ClozeReader reader(model_config, init);
  const std::vector<NamedParameter> parameters = reader.named_parameters();
  Optimizer optimizer(parameters, tc);
  observer.on_message("cloze reader (" + name_of(model_config.reader) + "): " + std::to_string(reader.parameter_count()) +
                      " parameters; vocabulary " + std::to_string(model_config.src_vocab) + "; " +
                      std::to_string(train_split.examples.size()) + " training questions, " +
                      std::to_string(per_batch) + " per batch");
  write_file_atomically(request.run_dir + "/config.yaml", to_yaml(config));
  attempt.keep();                                                      // the folder is a run now: keep it
  Ranks one_process;
  Learner learner{reader, parameters, optimizer, dropout_generator, one_process, tc, model_config.d_model, {}};
  ClozeRun run{config, reader, learner, questions, valid_split,
               CheckpointDirectory(checkpoints_dir(request.run_dir), tc.keep_last), CheckpointState{},
               TrainingRecords(request.run_dir, /*writes=*/true), observer};
  run.state.config_yaml = to_yaml(config);
  run.state.best_metric = std::numeric_limits<double>::infinity();

  // The loop (run/training_loop.h): the one training step (train/step.h) on the next questions.
  ClozeTraining cloze(run);
  int64_t step = 0;
  TrainSummary& summary = run.records.summary;
  summary.outcome = train_until_stopped(cloze, tc, step, run.records, observer);
  run.state.step = step;
  if (!run.checkpoints.has_best()) run.checkpoints.save_best(reader, optimizer, run.state);
  summary.step = step;
  summary.checkpoint = run.checkpoints.save_step(reader, optimizer, run.state);
  summary.seconds = run.records.seconds();
  return summary;
}

LoadedClozeRun load_cloze_run(const std::string& run_dir, const std::string& which) {
  LoadedClozeRun run;
  run.config = load_run_config(run_dir);
  if (run.config.model.task != Task::cloze) {
    throw Error("'" + run_dir + "' is a " + name_of(run.config.model.task) + " run, not a cloze reader (model.task)");
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

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
