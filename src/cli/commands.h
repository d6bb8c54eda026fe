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
  std::string path;                    // paper | fused (empty: the run's model.path)
  int64_t beam = 0;                    // beam size; 0: the run's decode.beam (1 = greedy)
  double alpha = -1;                   // GNMT length penalty α; < 0: the run's decode.length_penalty
};
int translate_command(const TranslateCommandOptions& options);   // src/cli/translate_command.cpp

struct EvalCommandOptions {
  std::string run;                     // a run folder
  std::string split;                   // valid | test (the run's config names the files) …
  std::string src, ref;                // … or two line-aligned files
  std::optional<int64_t> beam;         // empty: the run's decode.beam
  std::string checkpoint = "best";     // best | latest | a checkpoint file
  std::string path;                    // paper | fused (empty: the run's model.path)
  bool json = false;                   // one JSON object instead of the table
  std::string out;                     // hypotheses file; empty: RUN/eval-SPLIT.hyp or SRC.hyp
};
int eval_command(const EvalCommandOptions& options);             // src/cli/eval_command.cpp
int cloze_eval_command(const EvalCommandOptions& options);       // src/cli/cloze_commands.cpp (model.task: cloze)
struct TraceCommandOptions {
  std::string run;                     // a run folder
  std::string text;                    // the source sentence
  std::optional<std::string> target;   // teacher-forced target; empty optional: the greedy translation
  int64_t values = 4;                  // numbers shown per line (the first of the first row)
  std::string checkpoint = "best";     // best | latest | a checkpoint file
};
int trace_command(const TraceCommandOptions& options);           // src/cli/trace_command.cpp
struct AttentionCommandOptions {
  std::string run;                     // a run folder
  std::string text;                    // the source sentence
  std::string target;                  // a target to force (teacher forcing); empty: the greedy translation
  std::string out;                     // folder for attention.json, the SVGs and index.html (empty: none)
  bool terminal = false;               // also print every head as a shaded heatmap to stdout
  std::string checkpoint = "best";     // best | latest | a checkpoint file
  int64_t beam = 0;                    // beam size; 0: the run's decode.beam (1 = greedy)
  std::string compare;                 // a second run folder for the page's compare view (empty: none)
};
int attention_command(const AttentionCommandOptions& options);   // src/cli/attention_command.cpp
int cloze_attention_command(const AttentionCommandOptions& options);   // src/cli/cloze_commands.cpp

struct ReportCommandOptions {
  std::string run;                     // a run folder
  std::string out;                     // the HTML file (empty: RUN/report.html)
  std::string text;                    // the sentence whose attention is shown (empty: the first sample)
  int64_t samples = 8;                 // sample translations from the test (else validation) split
  std::string checkpoint = "best";     // best | latest | a checkpoint file
};
int report_command(const ReportCommandOptions& options);         // src/cli/report_command.cpp
struct ServeCommandOptions {
  std::vector<std::string> runs;       // the run folders a visitor may choose among
  std::string host = "127.0.0.1";      // the address to listen on: this machine only, unless told otherwise
  int port = 8080;
  std::string checkpoint = "best";     // best | latest | a checkpoint file (of every run)
  int64_t max_text_bytes = 1000;       // a longer sentence is refused (400)
  int64_t max_in_flight = 8;           // translations at once; more are refused (503) until one ends
};
int serve_command(const ServeCommandOptions& options);           // src/cli/serve_command.cpp
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
  bool profile = false;                // instead: every op timed, on 1 thread and on --threads (bench.h, run_profile)
  bool sweep_length = false;           // instead: time one attention layer of each kind at n = 32 … 2048
  std::vector<std::string> kinds;      // the sweep's kinds (empty: all)
  int64_t max_length = 2048;           // the sweep's largest n
  std::string out = "docs";            // where the sweep writes length_sweep.md and length_sweep.svg
};
int bench_command(const BenchCommandOptions& options);           // src/cli/bench_command.cpp
struct GradvarCommandOptions {
  std::vector<std::string> runs;       // run folders (translation runs)
  std::vector<int64_t> steps;          // 0 = the initial weights, or steps with a checkpoint; empty: 0 and all
  std::vector<std::string> parameters; // empty: every cross-attention q_proj and k_proj weight
  int64_t samples = 32;                // K gradients per row
  std::vector<std::string> sources;    // batch | batches; empty: both
  uint64_t seed = 1;                   // hard attention's sampling
  bool json = false;                   // one JSON object instead of the table
  std::string out;                     // folder for gradvar.md and gradvar.svg (empty: none)
  std::string command_line;            // as typed, for gradvar.md
};
int gradvar_command(const GradvarCommandOptions& options);       // src/cli/gradvar_command.cpp

}  // namespace attnlab
