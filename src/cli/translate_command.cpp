// translate_command.cpp — `attnlab translate`: source sentences in, translations out.
//
// Sentences come from --text, or one per line from standard input; each translation is written to standard output
// on its own line, in input order. From a terminal each line is answered as it is typed (after a "> " prompt); from
// a file or a pipe every line is read first and the sentences are decoded in batches sorted by length
// (decode.batch_tokens, src/decode/batched.h), several times faster than one at a time. Decoding is the run's decode:
// section (greedy when decode.beam is 1, beam search otherwise); --beam, --alpha and --no-repeat-ngram override it.
// Each line goes through encode_line (src/run/run.h; translate_line adds translating and decoding): checked to be
// UTF-8, cleaned like the training text, cut with a warning naming the line when it has more tokens than the model
// reads at once.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "decode/batched.h"
#include "run/run.h"

namespace attnlab {

struct TranslateCommandOptions {
  std::string run;                     // a run folder
  std::string text;                    // one sentence; empty: read lines from stdin
  std::string checkpoint = "best";     // best | latest | average | a checkpoint file
  std::string path;                    // paper | fused (empty: the run's model.path)
  int64_t beam = 0;                    // beam size; 0: the run's decode.beam (1 = greedy)
  double alpha = -1;                   // GNMT length penalty α; < 0: the run's decode.length_penalty
  int64_t no_repeat_ngram = -1;        // the repetition guard's N; < 0: the run's decode.no_repeat_ngram
};

int translate_command(const TranslateCommandOptions& options) {
  LoadedRun run = load_run(options.run, options.checkpoint);
  // --path (its word checked by CLI11) overrides the run's model.path.
  if (!options.path.empty()) run.model->use_compute_path(choice_named<ComputePath>(options.path).value());
  DecodeConfig decode = run.config.decode;              // the run's decode: section, unless overridden
  if (options.beam > 0) decode.beam = options.beam;
  if (options.alpha >= 0) decode.length_penalty = options.alpha;
  if (options.no_repeat_ngram >= 0) decode.no_repeat_ngram = options.no_repeat_ngram;
  if (!options.text.empty()) {
    std::printf("%s\n", translate_line(run, decode, options.text, "--text").c_str());
    return 0;
  }
  std::string line;
  int64_t line_number = 0;
  if (::isatty(STDIN_FILENO) == 1) {
    // A person typing: each line is answered as soon as it is entered.
    while (true) {
      std::fprintf(stderr, "> ");
      std::fflush(stderr);
      if (!std::getline(std::cin, line)) break;
      std::printf("%s\n", translate_line(run, decode, line, "input line " + std::to_string(++line_number)).c_str());
      std::fflush(stdout);
    }
    return 0;
  }
  // A file or a pipe: every line first, then the sentences sorted by length and decoded in batches of
  // decode.batch_tokens (decode/batched.h), written back in input order.
  std::vector<std::vector<int32_t>> sources;
  while (std::getline(std::cin, line)) {
    sources.push_back(encode_line(run, line, "input line " + std::to_string(++line_number)));
  }
  std::vector<std::vector<int32_t>> outputs = translate_batched(*run.model, sources, decode);
  for (const std::vector<int32_t>& output : outputs) {
    std::printf("%s\n", run.tokenizers.tgt->decode(output).c_str());
  }
  return 0;
}

// `attnlab translate`: its options and their help texts, read into TranslateCommandOptions; main.cpp runs it.
Subcommand add_translate_command(CLI::App& app) {
  auto options = std::make_shared<TranslateCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "translate",
      "Translate with a trained run: --text \"...\", or one sentence per line from standard input; "
      "translations go to standard output, one per line.");
  subcommand->add_option("--run", options->run, "The run folder")->required();
  subcommand->add_option("--text", options->text, "One sentence to translate (otherwise read stdin)");
  subcommand
      ->add_option("--path", options->path,
                   "paper (the paper's chain of plain ops, for stepping through) or fused (the fast kernels); sets "
                   "model.path (default: the run's)")
      ->check(CLI::IsMember(choice_names(ComputePath{})));
  subcommand->add_option("--checkpoint", options->checkpoint,
                         "best (default), latest, average (attnlab average), or the path of a checkpoint file");
  subcommand->add_option("--beam", options->beam, "Beam size: 1 = greedy decoding (default: the run's decode.beam)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  subcommand
      ->add_option("--alpha", options->alpha,
                   "GNMT length penalty α of beam search, lp = ((5 + |Y|) / 6)^α; 0 = none "
                   "(default: the run's decode.length_penalty)")
      ->check(CLI::Range(0.0, 100.0));
  subcommand
      ->add_option("--no-repeat-ngram", options->no_repeat_ngram,
                   "N: no n-gram of N tokens appears twice in a translation; 0 = off "
                   "(default: the run's decode.no_repeat_ngram)")
      ->check(CLI::Range(int64_t{0}, int64_t{1000}));
  return {subcommand, [options] { return translate_command(*options); }};
}

}  // namespace attnlab
