// main.cpp — the `attnlab` command: its table of contents. Each subcommand registers itself from its own file
// (src/cli/NAME_command.cpp, commands.h); main parses the command line and runs the one given.
//
// Library code logs through spdlog; only this front end writes results to stdout. Any attnlab::Error (bad
// input: a missing file, a malformed checkpoint, a shape that does not fit) ends the program with its one-line
// message on stderr and exit code 1. So does a command-line mistake: CLI11's own message (a bad option value, a
// missing --run), or for an unknown subcommand the closest one, on one "attnlab: …" line, exit code 1; and so does
// running out of memory (std::bad_alloc: "attnlab: out of memory: …").
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "tensor/product/bf16_product.h"
#include "tensor/vector_unit.h"
#include "util/error.h"
#include "util/utf8.h"

int main(int argc, char** argv) {
  CLI::App app{"attnlab — a Transformer encoder–decoder trainer on a from-scratch autograd engine, "
               "made to be learned from."};
  app.require_subcommand(1);
  app.fallthrough();  // global options (--log-level) work after the subcommand too, inherited by every subcommand
  // The version; where model.precision: bfloat16 multiplies on this CPU (bf16_product.h: AMX's tiles, AVX512_BF16's
  // vdpbf16ps, or only the emulated path), asked when --version is given; and the vectors this build adds its floats
  // with: trained numbers differ a little between widths. Weights, sums and the optimizer are float32 in every case.
  app.set_version_flag("--version", [] {
    const char* bf16 = "bfloat16 emulated only";
    if (attnlab::fastest_bf16_path() == attnlab::Bf16Path::tiles) bf16 = "bfloat16 on AMX tiles";
    if (attnlab::fastest_bf16_path() == attnlab::Bf16Path::fast) bf16 = "bfloat16 on AVX512_BF16";
    return std::string("attnlab 0.1.0 (float32, and ") + bf16 + "; vectors: " + attnlab::vector_unit() + ")";
  });

  // The subcommands in the order of the course, which is the order `attnlab --help` lists them in. Each one's
  // options and help texts are in its own file (commands.h).
  const std::vector<attnlab::Subcommand> subcommands{
      attnlab::add_gradcheck_command(app),
      attnlab::add_corpus_command(app),
      attnlab::add_train_command(app),
      attnlab::add_translate_command(app),
      attnlab::add_generate_command(app),
      attnlab::add_eval_command(app),
      attnlab::add_average_command(app),
      attnlab::add_trace_command(app),
      attnlab::add_attention_command(app),
      attnlab::add_align_command(app),
      attnlab::add_serve_command(app),
      attnlab::add_report_command(app),
      attnlab::add_bench_command(app),
      attnlab::add_gradvar_command(app, argc, argv),
  };

  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off (default info)")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return attnlab::refuse_command_line(app, error, argc, argv);   // one "attnlab: …" line (command_line.cpp)
  }
  // Logs go to stderr, so that stdout carries only results (translations, tables).
  spdlog::set_default_logger(spdlog::stderr_color_mt("attnlab"));
  spdlog::set_pattern("[%H:%M:%S] %v");
  spdlog::set_level(spdlog::level::from_str(log_level));

  try {
    for (const attnlab::Subcommand& subcommand : subcommands) {
      if (*subcommand.app) return subcommand.run();
    }
  } catch (const attnlab::Error& e) {
    // A message may quote a file's bytes: any that are not UTF-8 are shown as \xHH, not printed raw.
    std::fprintf(stderr, "attnlab: %s\n", attnlab::escape_invalid_utf8(e.what()).c_str());
    return 1;
  } catch (const std::bad_alloc&) {
    // Readers let an allocation that fails escape as itself, having changed nothing and left no file half-written
    // (tests/run/alloc_failure/): not a bug in attnlab, and not bad input.
    std::fprintf(stderr, "attnlab: out of memory: an allocation failed; free memory, or make the model, batch or "
                         "corpus smaller\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
