// language_model.cpp — a decoder-only model's text, training, perplexity and loading (language_model.h); the step
// and the loop are the translator's (train/step.h, run/training_loop.h), on blocks of one text.
#include "gpt/language_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "autograd/ops.h"
#include "data/batch_stream.h"
#include "data/batching.h"
#include "data/corpus.h"
#include "run/config_io.h"
#include "run/run.h"
#include "run/start_attempt.h"
#include "tensor/parallel.h"
#include "train/checkpoint.h"
#include "train/optimizer.h"
#include "train/step.h"
#include "train/utilisation.h"
#include "util/error.h"
#include "util/files.h"
#include "util/quote.h"
#include "util/utf8.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

std::vector<size_t> in_order(size_t n) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  return order;
}

// data.<split>_text's documents, cleaned as the translator's text is (data/corpus.h): spaces, lower case.
std::vector<std::string> read_documents(const RunConfig& config, const std::string& path) {
  std::vector<std::string> documents;
  for (const std::string& line : read_lines(path)) documents.push_back(clean_like_training(config, line));
  return documents;
}

bool is_language_model_config(const std::string& path, const std::vector<std::string>& overrides) {
  return !path.empty() && path_exists(path) && load_config(path, overrides).model.task == Task::language_model;
}

}  // namespace

TextScore evaluate_text(DecoderOnly& model, const TextBlocks& text, int64_t blocks_per_batch) {
  NoGradGuard no_grad;
  ForwardContext ctx;  // not training: no dropout
  const std::vector<size_t> order = in_order(text.blocks.size());
  TextScore score;
  int64_t correct = 0;
  double loss_sum = 0;
  for (size_t first = 0; first < order.size(); first += static_cast<size_t>(blocks_per_batch)) {
    const TextBatch batch = text_batch(text, order, first, static_cast<size_t>(blocks_per_batch));
    const Tensor logits = model.logits(batch.tokens, ctx);  // [B, T, V]
    const int64_t V = logits.size(2);
    for (size_t i = 0; i < batch.targets.values.size(); ++i) {
      if (batch.targets.values[i] == pad_id) continue;
      const real* row = logits.data() + static_cast<int64_t>(i) * V;
      correct += (std::max_element(row, row + V) - row) == batch.targets.values[i];
    }
    // cross_entropy averages over the batch's real targets; weight it back to a sum.
    loss_sum += cross_entropy(logits, batch.targets, 0, pad_id).item() * static_cast<double>(batch.real_targets);
    score.tokens += batch.real_targets;
  }
  if (score.tokens == 0) return score;
  score.loss = loss_sum / static_cast<double>(score.tokens);
  score.perplexity = std::exp(score.loss);
  score.token_accuracy = static_cast<double>(correct) / static_cast<double>(score.tokens);
  return score;
}

bool is_language_model_request(const TrainRequest& request) {
  return request.resume ? is_language_model_run(request.run_dir)
                        : is_language_model_config(request.config_path, request.overrides);
}

bool is_language_model_run(const std::string& run_dir) {
  return is_language_model_config(run_dir + "/config.yaml", {});
}

namespace {

// The training blocks, batch after batch, shuffled anew each epoch (data/batch_stream.h).
BatchStream<TextBatch> block_stream(const TextBlocks& text, size_t per_batch, uint64_t seed) {
  return shuffled_batches<TextBatch>(text.blocks.size(), per_batch, seed,
                                     [&text](const std::vector<size_t>& order, size_t first, size_t count) {
                                       return text_batch(text, order, first, count);
                                     });
}

// The model, what moves its weights, and where the run writes.
struct TextRun {
  const RunConfig& config;
  DecoderOnly& model;
  Learner& learner;
  BatchStream<TextBatch>& blocks;
  const TextBlocks* valid;  // null: no data.valid_text
  CheckpointDirectory checkpoints;
  CheckpointState state;
  TrainingRecords records;  // RUN/metrics.jsonl
  TrainingObserver& observer;
  int64_t validated_at = -1;  // the step of the last validation
};

// Loss, perplexity and token accuracy on the validation text; best.safetensors when the loss is the lowest so far.
void validate_text(TextRun& run, int64_t step) {
  const TextScore valid = evaluate_text(run.model, *run.valid);
  const bool best = valid.loss < run.state.best_metric;
  run.state.step = step;
  run.validated_at = step;
  if (best) {
    run.state.best_metric = valid.loss;
    run.checkpoints.save_best(run.model, run.learner.optimizer, run.state);
  }
  char line[200];
  std::snprintf(line, sizeof line,
                "validation at step %lld: loss %.4f  perplexity %.3f  token accuracy %.1f%% "
                "(%lld tokens)%s",
                static_cast<long long>(step), valid.loss, valid.perplexity, 100 * valid.token_accuracy,
                static_cast<long long>(valid.tokens), best ? "  — best so far, saved" : "");
  run.observer.on_message(line);
  run.records.summary.validation.loss = valid.loss;
  run.records.summary.validation.perplexity = valid.perplexity;
  run.records.summary.validation.token_accuracy = valid.token_accuracy;
  run.records.write_line(nlohmann::json{{"type", "valid"},
                                        {"step", step},
                                        {"loss", valid.loss},
                                        {"perplexity", valid.perplexity},
                                        {"token_accuracy", valid.token_accuracy},
                                        {"elapsed_s", run.records.seconds()}}
                             .dump());
}

// A language model as the loop (run/training_loop.h) sees it: the next blocks' next-token loss.
class TextTraining : public TrainingTask {
 public:
  explicit TextTraining(TextRun& run) : run_(run) {}

  StepResult step(int64_t step) override {
    const auto next_blocks = [this](ForwardContext& ctx) {
      const TextBatch& batch = run_.blocks.next();
      SampledChoices sampled;  // what hard attention draws (if any)
      ctx.sampled = &sampled;
      PartLoss part;
      part.loss = run_.model.loss(batch.tokens, batch.targets, static_cast<real>(run_.config.train.label_smoothing),
                                  ctx);  // [1]
      ctx.sampled = nullptr;
      part.value = part.loss.item();
      if (Tensor reinforce = score_function_loss(sampled); reinforce.defined()) part.loss = add(part.loss, reinforce);
      part.tokens = batch.real_targets;
      part.flops = forward_flops(run_.model.config(), batch.tokens.shape[0], 0, batch.tokens.shape[1]);
      return part;
    };
    return training_step(run_.learner, next_blocks, step);
  }
  int64_t epoch() const override { return run_.blocks.epoch(); }
  // A validation every train.valid_every steps (and one after the last, train_language_model); the one step
  // checkpoint comes at the end.
  void validate_and_checkpoint(int64_t step, const Due& due) override {
    if (run_.valid && due.validate) validate_text(run_, step);
  }

 private:
  TextRun& run_;
};

// The split's blocks, and a log line counting them.
TextBlocks split_blocks(const RunConfig& config, const std::string& path, const Tokenizer& tokenizer,
                        TrainingObserver& observer) {
  TextBlocks text = text_blocks(read_documents(config, path), tokenizer, config.data.max_len, path);
  observer.on_message(path + ": " + std::to_string(text.documents) + " documents, " + std::to_string(text.tokens) +
                      " tokens, " + std::to_string(text.blocks.size()) +
                      " blocks of data.max_len = " + std::to_string(config.data.max_len));
  return text;
}

}  // namespace

TrainSummary train_language_model(const TrainRequest& request, TrainingObserver& observer) {
  reset_training_stop();
  StartAttempt attempt(request.run_dir);  // until keep(), a failure removes what this start created
  refuse_short_run_request(request, "a language model (model.task: language_model)", "language models");
  const RunConfig config = load_config(request.config_path, request.overrides);
  const TrainConfig& tc = config.train;
  std::filesystem::create_directories(request.run_dir);
  use_threads(tc.threads);

  // The text: the tokenizer learns the training text; then one stream of ids in blocks.
  const std::vector<std::string> documents = read_documents(config, config.data.train_text);
  const RunTokenizers tokenizers = prepare_tokenizers(config, request.run_dir, documents, {});
  const TextBlocks train_text = split_blocks(config, config.data.train_text, *tokenizers.src, observer);
  std::optional<TextBlocks> valid_text;
  if (!config.data.valid_text.empty())
    valid_text = split_blocks(config, config.data.valid_text, *tokenizers.src, observer);
  const size_t per_batch = std::max<size_t>(1, static_cast<size_t>(tc.batch_tokens / config.data.max_len));
  BatchStream<TextBatch> blocks = block_stream(train_text, per_batch, tc.seed + 2);

  // The model, the optimizer, the dropout generator.
  const ModelConfig model_config = model_config_for(config, tokenizers);
  check_model_fits_memory(model_config, 4, "training's weights, gradients and Adam's two moments");
  Generator init(tc.seed), dropout_generator(tc.seed + 1);
  DecoderOnly model(model_config, init);
  const std::vector<NamedParameter> parameters = model.named_parameters();
  Optimizer optimizer(parameters, tc);
  observer.on_message("decoder-only model: " + std::to_string(model.parameter_count()) + " parameters; vocabulary " +
                      std::to_string(model_config.tgt_vocab) + "; " + std::to_string(per_batch) + " blocks per batch");
  write_file_atomically(request.run_dir + "/config.yaml", to_yaml(config));
  attempt.keep();  // the folder is a run now: keep it
  Ranks one_process;
  // The GEMM peak (for the MFU) before TrainingRecords' clock starts: its products are not training.
  const Utilisation peak =
      request.measure_peak ? measure_peak(1, use_threads(tc.threads), config.model.precision, observer) : Utilisation{};
  Learner learner{model, parameters, optimizer, dropout_generator, one_process, tc, model_config.d_model, {}};
  TextRun run{config,
              model,
              learner,
              blocks,
              valid_text ? &*valid_text : nullptr,
              CheckpointDirectory(checkpoints_dir(request.run_dir), tc.keep_last),
              CheckpointState{},
              TrainingRecords(request.run_dir, /*writes=*/true),
              observer};
  run.state.config_yaml = to_yaml(config);
  run.state.best_metric = std::numeric_limits<double>::infinity();
  run.records.utilisation = peak;

  // The loop (run/training_loop.h): the one training step (train/step.h) on the next blocks.
  TextTraining training(run);
  int64_t step = 0;
  TrainSummary& summary = run.records.summary;
  summary.outcome = train_until_stopped(training, tc, step, run.records, observer);
  run.state.step = step;
  if (run.valid && run.validated_at != step) validate_text(run, step);  // the last step, whatever stopped the loop
  if (!run.checkpoints.has_best()) run.checkpoints.save_best(model, optimizer, run.state);
  summary.step = step;
  summary.checkpoint = run.checkpoints.save_step(model, optimizer, run.state);
  summary.seconds = run.records.seconds();
  return summary;
}

LoadedLanguageModel load_language_model(const std::string& run_dir, const std::string& which) {
  LoadedLanguageModel run;
  run.config = load_run_config(run_dir);
  if (run.config.model.task != Task::language_model) {
    throw Error("'" + run_dir + "' is a " + name_of(run.config.model.task) +
                " run (model.task: " + name_of(run.config.model.task) +
                "), not a language model: attnlab generate continues text with a "
                "model.task: language_model run" +
                (run.config.model.task == Task::translation ? "; translate with attnlab translate --run " + run_dir
                                                            : std::string()));
  }
  RunTokenizers tokenizers = load_run_tokenizers(run.config, run_dir);
  run.tokenizer = tokenizers.src;
  Generator init(run.config.train.seed);
  run.model = std::make_unique<DecoderOnly>(model_config_for(run.config, tokenizers), init);
  run.checkpoint_path = checkpoint_to_load(run.config, run_dir, which);
  run.step = load_checkpoint(run.checkpoint_path, *run.model, nullptr).step;
  return run;
}

std::vector<int32_t> prompt_ids(const LoadedLanguageModel& run, const std::string& prompt) {
  if (size_t bad = first_invalid_utf8(prompt); bad != std::string_view::npos) {
    throw Error("--prompt is not valid UTF-8 (byte " + std::to_string(bad + 1) + "); attnlab reads UTF-8 text");
  }
  std::vector<int32_t> ids{bos_id};  // a document starts here
  const std::vector<int32_t> text = run.tokenizer->encode(clean_like_training(run.config, prompt));
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](int32_t id) { return id == unk_id; })) {
    throw Error("the prompt " + quote(prompt, '\'') + " has no token this model knows: its " +
                std::to_string(text.size()) + " token(s) are all unknown (<unk>) to the tokenizer trained on " +
                run.config.data.train_text + "; use words of that text, or an empty prompt to start a new document");
  }
  ids.insert(ids.end(), text.begin(), text.end());
  return ids;
}

std::string generate_text(const LoadedLanguageModel& run, const std::string& prompt, int64_t max_tokens,
                          const SamplingConfig& sampling, uint64_t seed) {
  Generator generator(seed);
  const std::vector<int32_t> out = continue_text(*run.model, prompt_ids(run, prompt), max_tokens, sampling, generator);
  return run.tokenizer->decode(out);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
