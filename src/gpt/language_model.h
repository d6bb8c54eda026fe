// language_model.h — training a decoder-only model (gpt/decoder_only.h) on one text, measuring its perplexity,
// and loading it back to continue a prompt: what `attnlab train` runs when the config says
// model.task: language_model, and what `attnlab generate` reads.
//
// The data section names one file per split, a document a line: data.train_text (and valid_text, test_text). The
// tokenizer (tokenizer.shared: true, one vocabulary) learns the training text; the text becomes one stream of ids
// cut into blocks of T = data.max_len tokens (gpt/text_blocks.h).
//
// One step: a batch of blocks (train.batch_tokens / T of them, at least 1) in a shuffled order, each epoch anew;
// loss = the label-smoothed cross-entropy of every next token, backward, clip, the schedule, Adam(W) — the step
// and the loop the translator and the cloze readers run (train/step.h, run/training_loop.h). Every
// train.valid_every steps and after the last: the valid text's loss per token, its perplexity e^loss and the share
// of tokens predicted right; best.safetensors when the loss is the lowest so far; a step checkpoint at the end.
// --resume and mpirun are refused (a run takes minutes; the loop keeps no place in the epoch), as for cloze.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/tokenizers/tokenizer.h"
#include "gpt/decoder_only.h"
#include "gpt/sampling.h"
#include "gpt/text_blocks.h"
#include "run/config.h"
#include "run/trainer.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// How well a language model predicts a text, teacher-forced over its blocks.
struct TextScore {
  int64_t tokens = 0;          // targets scored
  double loss = 0;             // mean −log p(next token), no label smoothing
  double perplexity = 0;       // e^loss: "as unsure as a uniform choice among this many tokens"
  double token_accuracy = 0;   // share of targets that are the argmax
};
TextScore evaluate_text(DecoderOnly& model, const TextBlocks& text, int64_t blocks_per_batch = 16);

// Does the request's config (its file, or the run's config.yaml) say model.task: language_model?
bool is_language_model_request(const TrainRequest& request);
bool is_language_model_run(const std::string& run_dir);

// Trains a decoder-only model in a new run folder. A start that fails before config.yaml is written leaves the
// folder as it was (StartAttempt, run/start_attempt.h).
TrainSummary train_language_model(const TrainRequest& request, TrainingObserver& observer);

// A trained language model: its config, tokenizer and model with the weights of `which` (as load_run()). Throws
// attnlab::Error naming the run's task when it is not a language model.
struct LoadedLanguageModel {
  RunConfig config;
  std::shared_ptr<Tokenizer> tokenizer;
  std::unique_ptr<DecoderOnly> model;
  std::string checkpoint_path;
  int64_t step = 0;
};
LoadedLanguageModel load_language_model(const std::string& run_dir, const std::string& which = "best");

// A prompt as the model's first ids: bos, then the prompt cleaned like the training text and encoded. An empty
// prompt is bos alone (a new document); a prompt that is not UTF-8, or whose every token is unknown to the
// tokenizer, is an attnlab::Error that says so.
std::vector<int32_t> prompt_ids(const LoadedLanguageModel& run, const std::string& prompt);

// The model's continuation of `prompt` as text (sampling.h: continue_text), without the prompt.
std::string generate_text(const LoadedLanguageModel& run, const std::string& prompt, int64_t max_tokens,
                          const SamplingConfig& sampling, uint64_t seed);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
