// commands.h — the subcommands of `attnlab`, one function each, called by main.cpp.
//
// Each returns the process exit code. They are declared outside the precision namespaces (see
// src/tensor/real.h) because main.cpp is compiled in float32 while gradcheck runs in float64.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

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

}  // namespace attnlab
