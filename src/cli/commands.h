// commands.h — the subcommands of `attnlab`, one registration function each, called by main.cpp in the order
// of the course.
//
// Each command file (src/cli/NAME_command.cpp) registers its own subcommand: add_NAME_command() adds it to the
// `attnlab` app with its options and their help texts, and returns the parsed subcommand beside a function that
// runs it and returns the process exit code. main.cpp parses the command line once and runs the one given.
//
// They are declared outside the precision namespaces (see src/tensor/real.h) because main.cpp is compiled in
// float32 while gradcheck runs in float64.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
class ParseError;
}  // namespace CLI

namespace attnlab {

struct Subcommand {
  CLI::App* app;             // as CLI11 parsed it: *app is true when it was given on the command line
  std::function<int()> run;  // runs the command with the options as parsed; returns the exit code
};

// A command line CLI11 refused, as one "attnlab: …" line on stderr; returns the exit code (1; 0 for --help and
// --version, which CLI11 reports the same way). command_line.cpp.
int refuse_command_line(CLI::App& app, const CLI::ParseError& error, int argc, char** argv);

Subcommand add_gradcheck_command(CLI::App& app);  // src/cli/gradcheck_command.cpp (float64)
Subcommand add_corpus_command(CLI::App& app);     // src/cli/corpus_command.cpp (float32, as all below)
Subcommand add_train_command(CLI::App& app);      // src/cli/train_command.cpp
Subcommand add_translate_command(CLI::App& app);  // src/cli/translate_command.cpp
Subcommand add_generate_command(CLI::App& app);   // src/cli/generate_command.cpp (model.task: language_model)
Subcommand add_eval_command(CLI::App& app);       // src/cli/eval_command.cpp
Subcommand add_average_command(CLI::App& app);    // src/cli/average_command.cpp
Subcommand add_trace_command(CLI::App& app);      // src/cli/trace_command.cpp
Subcommand add_attention_command(CLI::App& app);  // src/cli/attention_command.cpp
Subcommand add_align_command(CLI::App& app);      // src/cli/align_command.cpp
Subcommand add_serve_command(CLI::App& app);      // src/cli/serve_command.cpp
Subcommand add_report_command(CLI::App& app);     // src/cli/report_command.cpp
Subcommand add_bench_command(CLI::App& app);      // src/cli/bench_command.cpp
// argc and argv: the command line as typed, written into gradvar.md.
Subcommand add_gradvar_command(CLI::App& app, int argc, char** argv);  // src/cli/gradvar_command.cpp

// The decoding options translate and eval share, --alpha and --no-repeat-ngram, read into values left < 0 unless
// given (src/cli/translate_command.cpp).
void add_decode_overrides(CLI::App* subcommand, double& alpha, int64_t& no_repeat_ngram);

// ---- A cloze run (model.task: cloze) through eval and attention ----
// eval_command() and attention_command() hand a cloze run over to src/cli/cloze_commands.cpp with their options;
// the other commands keep their options in their own files.

struct EvalCommandOptions {
  std::string run;                  // a run folder
  std::string split;                // valid | test (the run's config names the files) …
  std::string src, ref;             // … or two line-aligned files
  std::optional<int64_t> beam;      // empty: the run's decode.beam
  int64_t no_repeat_ngram = -1;     // the repetition guard's N; < 0: the run's decode.no_repeat_ngram
  double alpha = -1;                // beam search's GNMT length penalty α; < 0: the run's decode.length_penalty
  std::string checkpoint = "best";  // best | latest | a checkpoint file
  std::string path;                 // paper | fused (empty: the run's model.path)
  bool json = false;                // one JSON object instead of the table
  std::string out;                  // hypotheses file; empty: RUN/eval-SPLIT.hyp or SRC.hyp
};
int cloze_eval_command(const EvalCommandOptions& options);  // src/cli/cloze_commands.cpp

struct AttentionCommandOptions {
  std::string run;                  // a run folder
  std::string text;                 // the source sentence
  std::string target;               // a target to force (teacher forcing); empty: the greedy translation
  std::string out;                  // folder for attention.json, the SVGs and index.html (empty: none)
  bool terminal = false;            // also print every head as a shaded heatmap to stdout
  std::string checkpoint = "best";  // best | latest | average | a step number | a checkpoint file
  int64_t beam = 0;                 // beam size; 0: the run's decode.beam (1 = greedy)
  std::string compare;              // a second run folder for the page's compare view (empty: none)
  int64_t ig_steps = 16;            // integrated gradients' steps m (src/inspect/maps/flow.h); 0: no attribution
  bool live = false;                // --live: the live explorer (src/inspect/pages/live_page.h) instead of one sentence
  std::string engine = "build/wasm/web/attnlab_web.js";  // the browser build's engine, for --live
  bool json = false;                // --json: attention.json to stdout
  std::string checkpoints;          // "all": the film of the sentence over every step checkpoint (film.h)
  std::vector<std::string> contrast;  // "POS:TOKEN" or "all": contrasts for the decoding view (contrast.h)
  // A language model's run (model.task: language_model): --text is a prompt, continued by up to max_tokens new
  // tokens (0: the prompt alone) drawn as gpt/sampling.h says (temperature 0: greedy).
  int64_t max_tokens = 0;
  double temperature = 0, top_p = 1;
  int64_t top_k = 0;
  uint64_t seed = 1;
};
int cloze_attention_command(const AttentionCommandOptions& options);  // src/cli/cloze_commands.cpp

}  // namespace attnlab
