// commands.h — the subcommands of `attnlab`, one function each, called by main.cpp.
//
// Each returns the process exit code. They are declared outside the precision namespaces (see
// src/tensor/real.h) because main.cpp is compiled in float32 while gradcheck runs in float64.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

struct GradcheckCommandOptions {
  std::string op;         // empty: every op; otherwise only this op, with its gradients side by side
};
int gradcheck_command(const GradcheckCommandOptions& options);   // src/cli/gradcheck_command.cpp (float64)

struct CorpusCommandOptions {
  std::string task;               // copy | reverse | sort | toy-en-fr
  std::string out;                // directory for train / valid / test files (created if missing)
  uint64_t seed = 1;
  std::optional<int64_t> size;    // training pairs; empty: the task's default
};
int corpus_command(const CorpusCommandOptions& options);         // src/cli/corpus_command.cpp (float32)
struct TrainCommandOptions {
  std::string config;                  // a new run from this config file
  std::string run;                     // … written into this folder
  std::string resume;                  // or: continue the run in this folder
  std::vector<std::string> overrides;  // --set key=value
};
int train_command(const TrainCommandOptions& options);           // src/cli/train_command.cpp

struct TranslateCommandOptions {
  std::string run;                     // a run folder
  std::string text;                    // one sentence; empty: read lines from stdin
  std::string checkpoint = "best";     // best | latest | a checkpoint file
};
int translate_command(const TranslateCommandOptions& options);   // src/cli/translate_command.cpp

struct BenchCommandOptions {
  std::string config;                  // the model to time (its data section is not read)
  std::vector<std::string> overrides;  // --set key=value
  std::optional<int64_t> threads;      // --threads: overrides train.threads
  int64_t steps = 10;                  // timed training steps
  int64_t warmup = 2;                  // untimed steps before them
  int64_t batch = 64;                  // sentences per batch
  int64_t length = 32;                 // tokens per sentence, each side
  int64_t vocab = 0;                   // 0: tokenizer.vocab_size
  int64_t decode_sentences = 100;      // sentences translated for the decoding figures (0: skip)
  bool json = false;                   // one JSON object instead of the table
  bool sweep_length = false;           // instead: time one attention layer of each kind at n = 32 … 2048
  std::vector<std::string> kinds;      // the sweep's kinds (empty: all)
  int64_t max_length = 2048;           // the sweep's largest n
  std::string out = "docs";            // where the sweep writes length_sweep.md and length_sweep.svg
};
int bench_command(const BenchCommandOptions& options);           // src/cli/bench_command.cpp

}  // namespace attnlab
