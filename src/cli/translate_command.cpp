// translate_command.cpp — `attnlab translate`: source sentences in, translations out.
//
// Sentences come from --text, or one per line from standard input (with a "> " prompt when it is a terminal);
// each translation is written to standard output on its own line, in order.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "decode/greedy.h"
#include "tensor/error.h"
#include "train/run.h"

namespace attnlab {

int translate_command(const TranslateCommandOptions& options) {
  LoadedRun run = load_run(options.run, options.checkpoint);
  auto translate = [&](const std::string& sentence) {
    std::vector<int32_t> ids = run.tokenizers.src->encode(sentence);
    if (ids.empty()) return std::string();
    std::vector<std::vector<int32_t>> out = greedy_decode(*run.model, pad_batch({ids}), run.config.decode);
    return run.tokenizers.tgt->decode(out[0]);
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
