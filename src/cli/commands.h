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
  bool explain = false;   // with op: a guided tour first (formula, derivative, a small input, its gradients)
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

}  // namespace attnlab
