// run.h — a run folder, and everything needed to use it: config, tokenizers, model.
//
// A run folder (runs/NAME/) holds everything a training run produces, so it can be resumed, translated with,
// evaluated and inspected later:
//   config.yaml            the effective config (every key, defaults included)
//   tokenizer.*            the tokenizer (or src_tokenizer.* and tgt_tokenizer.* when not shared)
//   checkpoints/           step-00001000.safetensors … (the last K) and best.safetensors
//   metrics.jsonl          one JSON object per log line and per validation
//   train.log              the log
#pragma once

#include <memory>
#include <string>

#include "data/tokenizer.h"
#include "model/transformer.h"
#include "train/config.h"

namespace attnlab::inline ATTNLAB_PRECISION {

struct RunTokenizers {
  std::shared_ptr<Tokenizer> src;
  std::shared_ptr<Tokenizer> tgt;  // the same object as src when tokenizer.shared
};

// Trains the tokenizer(s) on the training text and saves them into the run folder, or loads them when the
// folder already has them (resume).
RunTokenizers prepare_tokenizers(const RunConfig& config, const std::string& run_dir,
                                 const std::vector<std::string>& train_src, const std::vector<std::string>& train_tgt);
// Loads the tokenizer(s) a finished run saved; throws attnlab::Error naming the missing file.
RunTokenizers load_run_tokenizers(const RunConfig& config, const std::string& run_dir);

// The model config with the vocabulary sizes taken from the tokenizers.
ModelConfig model_config_for(const RunConfig& config, const RunTokenizers& tokenizers);

// Everything `translate`, `eval`, `attention` and `trace` need: the run's config, tokenizers, and the model
// with the weights of `which` ("best" when it exists, else the latest step; or a checkpoint path).
struct LoadedRun {
  RunConfig config;
  RunTokenizers tokenizers;
  std::unique_ptr<Seq2Seq> model;
  std::string checkpoint_path;
  int64_t step = 0;
};
LoadedRun load_run(const std::string& run_dir, const std::string& which = "best");

std::string checkpoints_dir(const std::string& run_dir);

// Text typed or read at translation time, cleaned the way the training text was (src/data/corpus.cpp): Unicode
// spaces made plain, lower-cased when the run's data.lowercase is set. (The caller checks UTF-8 first.)
std::string clean_like_training(const RunConfig& config, const std::string& text);  // run_dir + "/checkpoints"

}  // namespace attnlab::inline ATTNLAB_PRECISION
