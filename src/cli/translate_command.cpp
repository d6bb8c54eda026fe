// translate_command.cpp — `attnlab translate`: source sentences in, translations out.
//
// Sentences come from --text, or one per line from standard input (with a "> " prompt when it is a terminal);
// each translation is written to standard output on its own line, in order. Decoding is the run's decode:
// section (greedy when decode.beam is 1, beam search otherwise); --beam and --alpha override it.
// Each line goes through translate_line (src/train/run.h): checked to be UTF-8, cleaned like the training text,
// cut with a warning naming the line when it has more tokens than the model reads at once, translated, decoded.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "train/run.h"

namespace attnlab {

int translate_command(const TranslateCommandOptions& options) {
  LoadedRun run = load_run(options.run, options.checkpoint);
  if (!options.kernels.empty()) run.model->use_kernels(parse_kernels(options.kernels));  // --kernels
  DecodeConfig decode = run.config.decode;              // the run's decode: section, unless overridden
  if (options.beam > 0) decode.beam = options.beam;
  if (options.alpha >= 0) decode.length_penalty = options.alpha;
  int64_t line_number = 0;
  auto translate = [&](const std::string& sentence) {
    ++line_number;
    const std::string where = options.text.empty() ? "input line " + std::to_string(line_number) : "--text";
    return translate_line(run, decode, sentence, where);
  };
  if (!options.text.empty()) {
    std::printf("%s\n", translate(options.text).c_str());
    return 0;
  }
  const bool interactive = ::isatty(STDIN_FILENO) == 1;
  std::string line;
  while (true) {
    if (interactive) {
      std::fprintf(stderr, "> ");
      std::fflush(stderr);
    }
    if (!std::getline(std::cin, line)) break;
    std::printf("%s\n", translate(line).c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace attnlab
