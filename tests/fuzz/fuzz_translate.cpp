// fuzz_translate.cpp — `attnlab translate`'s input path: one line of standard input to one line of output.
//
// Feeds: the input's first byte picks one of two tiny runs built at start-up from a fixed config (untrained
//   weights: what is tested is the path, not the translation), the rest up to its first line end is the line
//   (std::getline never hands translate a "\n"):
//     even  char tokenizer, lower-casing, sinusoidal positions, beam search (beam 2): a line would be cut at
//           translate_source_tokens_most = 1024 tokens, the "terabyte" case — but the fuzz scripts cap
//           inputs at 128 bytes for speed (tests/fuzz/options.sh), so that cut is checked by tests/cli/cli_test.sh
//           ("translate a runaway line"), not here;
//     odd   word tokenizer, learned positions with model.max_len 12, greedy: a line is cut at 12 tokens.
//   Both runs decode at most 4 + 0.01·(source tokens) tokens: the decoding path is the same for any length, and
//   fewer steps are more inputs a second (decode.max_len_ratio and decode.max_len_extra below).
//   translate_line (src/run/run.h) then checks UTF-8, cleans, encodes, cuts, decodes and detokenises.
// Asserts: a line of valid UTF-8 is always translated (never refused, never a crash, an Eigen assertion or a
//   huge allocation); a line that is not UTF-8 is refused with a short attnlab::Error (fuzz_support.h); the
//   output is valid UTF-8 and holds no line end, so the output lines stay aligned with the input lines.
#include <memory>

#include "data/corpus.h"
#include "fuzz_runs.h"
#include "fuzz_support.h"
#include "run/config_io.h"
#include "run/run.h"
#include "util/utf8.h"

using namespace attnlab;
using attnlab::fuzz::check;

namespace {

std::vector<LoadedRun>& runs() {
  static std::vector<LoadedRun> made = [] {
    std::vector<LoadedRun> both;
    both.push_back(fuzz::untrained_run(fuzz::sinusoidal_char_run, "sinusoidal-char"));
    both.push_back(fuzz::untrained_run(fuzz::learned_word_run, "learned-word"));
    return both;
  }();
  return made;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const LoadedRun& run = runs()[data[0] % 2];
  std::string line = fuzz::bytes_of(data + 1, size - 1);
  line = line.substr(0, line.find('\n'));
  const bool utf8 = first_invalid_utf8(line) == std::string::npos;
  std::string output;
  const bool translated =
      fuzz::refused_cleanly([&] { output = translate_line(run, run.config.decode, line, "input line 1"); });
  check(translated == utf8, utf8 ? "a line of valid UTF-8 was refused" : "a line that is not UTF-8 was translated");
  if (!translated) return 0;
  check(first_invalid_utf8(output) == std::string::npos, "the translation is not valid UTF-8");
  check(output.find_first_of("\r\n") == std::string::npos, "the translation holds a line end");
  return 0;
}
