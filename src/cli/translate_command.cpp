// translate_command.cpp — `attnlab translate`: source sentences in, translations out.
//
// Sentences come from --text, or one per line from standard input; each translation is written to standard output
// on its own line, in input order. From a terminal each line is answered as it is typed (after a "> " prompt); from
// a file or a pipe every line is read first and the sentences are decoded in batches sorted by length
// (decode.batch_tokens, src/decode/batched.h), several times faster than one at a time. Decoding is the run's decode:
// section (greedy when decode.beam is 1, beam search otherwise); --beam and --alpha override it.
// A sentence longer than the model can read (learned positions: more than model.max_len tokens) is cut to its
// first model.max_len tokens, with a warning naming the line on standard error: one long line in a stream must
// not stop the lines after it, nor shift the output against the input. (`attnlab eval` refuses such a
// sentence instead, since scores of a cut sentence would mislead.)
// Sinusoidal positions (or none) have no such limit, but memory does: a source of T tokens costs [heads, T, T]
// attention scores per layer, and a runaway line (a file without line breaks, 10⁷ tokens) would ask for
// terabytes. So translate reads at most source_tokens_most = 1024 tokens of a line — far beyond any sentence,
// 4 MB of scores per head — and cuts a longer one the same way, with the same warning.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "data/corpus.h"
#include "decode/batched.h"
#include "decode/greedy.h"
#include "decode/translate.h"
#include "util/error.h"
#include "train/run.h"
#include "util/utf8.h"

namespace attnlab {

namespace {

constexpr int64_t source_tokens_most = 1024;   // the longest source read at once with unlimited positions

}  // namespace

int translate_command(const TranslateCommandOptions& options) {
  LoadedRun run = load_run(options.run, options.checkpoint);
  if (!options.kernels.empty()) run.model->use_kernels(parse_kernels(options.kernels));  // --kernels
  DecodeConfig decode = run.config.decode;              // the run's decode: section, unless overridden
  if (options.beam > 0) decode.beam = options.beam;
  if (options.alpha >= 0) decode.length_penalty = options.alpha;
  // One line of text → its source ids, cut to what the model can read (see the top of this file).
  auto encode = [&](const std::string& sentence, int64_t line_number) {
    if (size_t bad = first_invalid_utf8(sentence); bad != std::string_view::npos) {
      throw Error("input line " + std::to_string(line_number) + " is not valid UTF-8 (byte " + std::to_string(bad + 1) +
                  "); attnlab reads UTF-8 text");
    }
    std::vector<int32_t> ids = run.tokenizers.src->encode(clean_like_training(run.config, sentence));
    const int64_t positions = position_limit(run.model->config());
    const int64_t limit = std::min(positions, source_tokens_most);
    if (static_cast<int64_t>(ids.size()) > limit) {
      const std::string why = positions <= source_tokens_most
                                  ? "model.max_len = " + std::to_string(limit) + ", the positions this model learned"
                                  : "the " + std::to_string(limit) + " tokens attnlab translate reads at once";
      spdlog::warn("{} has {} tokens, more than {}; translating its first {} tokens",
                   options.text.empty() ? "input line " + std::to_string(line_number) : "--text", ids.size(), why,
                   limit);
      ids.resize(static_cast<size_t>(limit));
    }
    return ids;
  };
  auto translate_one = [&](const std::string& sentence, int64_t line_number) {
    std::vector<int32_t> ids = encode(sentence, line_number);
    if (ids.empty()) return std::string();
    return run.tokenizers.tgt->decode(translate_ids(*run.model, pad_batch({ids}), decode)[0]);
  };
  if (!options.text.empty()) {
    std::printf("%s\n", translate_one(options.text, 1).c_str());
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
      std::printf("%s\n", translate_one(line, ++line_number).c_str());
      std::fflush(stdout);
    }
    return 0;
  }
  // A file or a pipe: every line first, then the sentences sorted by length and decoded in batches of
  // decode.batch_tokens (decode/batched.h), written back in input order.
  std::vector<std::vector<int32_t>> sources;
  while (std::getline(std::cin, line)) sources.push_back(encode(line, ++line_number));
  std::vector<std::vector<int32_t>> outputs = translate_batched(*run.model, sources, decode);
  for (const std::vector<int32_t>& output : outputs) {
    std::printf("%s\n", run.tokenizers.tgt->decode(output).c_str());
  }
  return 0;
}

}  // namespace attnlab
