// run.h — a run folder, and everything needed to use it: config, tokenizers, model.
//
// A run folder (runs/NAME/) holds everything a training run produces, so it can be resumed, translated with,
// evaluated and inspected later:
//   config.yaml            the effective config (every key, defaults included)
//   tokenizer.*            the tokenizer (or src_tokenizer.* and tgt_tokenizer.* when not shared)
//   checkpoints/           step-00001000.safetensors … (the last K), best.safetensors and, once averaged,
//                          average.safetensors (checkpoint_average.h)
//   metrics.jsonl          one JSON object per log line and per validation
//   train.log              the log
#pragma once

#include <memory>
#include <string>

#include "data/tokenizers/tokenizer.h"
#include "model/transformer.h"
#include "run/config.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

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
// RUN/config.yaml, read and checked; throws attnlab::Error when run_dir is not a run folder (no config.yaml).
// load_run and the cloze reader's load_cloze_run both start here. A run of model.precision bfloat16 read on a CPU
// without AVX512_BF16 comes back as bfloat16-emulated (the same numbers, slower), with a warning saying so.
RunConfig load_run_config(const std::string& run_dir);
// The checkpoint file `which` names: "best" (best.safetensors, else the latest step), "latest", "average" (the
// mean of several, checkpoint_average.h), or a path.
std::string checkpoint_to_load(const RunConfig& config, const std::string& run_dir, const std::string& which);

std::string checkpoints_dir(const std::string& run_dir);

// Text typed or read at translation time, cleaned the way the training text was (src/data/corpus.cpp): Unicode
// spaces made plain, lower-cased when the run's data.lowercase is set. (The caller checks UTF-8 first.)
std::string clean_like_training(const RunConfig& config, const std::string& text);  // run_dir + "/checkpoints"

// The longest source `attnlab translate` reads at once when positions do not limit it (sinusoidal or none): a
// source of T tokens costs [heads, T, T] attention scores per layer, and a runaway line (a file without line
// breaks, 10⁷ tokens) would ask for terabytes; 1024 tokens is far beyond any sentence, 4 MB of scores per head.
constexpr int64_t translate_source_tokens_most = 1024;

// One line of `attnlab translate` (its --text, or a line of standard input) as source ids: checked to be UTF-8
// (else attnlab::Error naming `where`, "input line 3" or "--text"), cleaned like the training text, encoded, cut
// to the tokens the model can read (model.max_len with learned positions, else translate_source_tokens_most) with
// a warning naming `where`. An empty line gives no ids.
std::vector<int32_t> encode_line(const LoadedRun& run, const std::string& line, const std::string& where);

// encode_line, then translated with `decode` and decoded to text. An empty line gives "".
std::string translate_line(const LoadedRun& run, const DecodeConfig& decode, const std::string& line,
                           const std::string& where);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
