// main.cpp — the `attnlab` command: its table of contents. Each subcommand registers itself from its own file
// (src/cli/NAME_command.cpp, commands.h); main parses the command line and runs the one given.
//
// Library code logs through spdlog; only this front end writes results to stdout. Any attnlab::Error (bad
// input: a missing file, a malformed checkpoint, a shape that does not fit) ends the program with its one-line
// message on stderr and exit code 1. So does a command-line mistake: CLI11's own message (a bad option value, a
// missing --run), or for an unknown subcommand the closest one, on one "attnlab: …" line, exit code 1.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "util/error.h"
#include "util/quote.h"
#include "util/suggest.h"

namespace {

using attnlab::closest_match, attnlab::join, attnlab::quote, attnlab::shorten;

// The first word of the command line that is not an option (nor --log-level's value): the subcommand, if any.
std::string first_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--log-level") ++i;
    else if (!word.starts_with("-")) return word;
  }
  return "";
}

// A command line CLI11 refused, as one "attnlab: …" line and exit code 1 (--help and --version, which CLI11 also
// reports this way, print and exit 0 as usual).
int refuse_command_line(CLI::App& app, const CLI::ParseError& error, int argc, char** argv) {
  if (error.get_exit_code() == 0) return app.exit(error);
  std::vector<std::string> names;
  for (const CLI::App* subcommand : app.get_subcommands([](CLI::App*) { return true; })) {
    names.push_back(subcommand->get_name());
  }
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  const std::string word = first_word(argc, argv);
  const bool known = std::find(names.begin(), names.end(), word) != names.end();
  const std::string name = parsed.empty() ? "" : parsed.back()->get_name();
  std::string message;
  if (argc == 1) {
    message = "a subcommand is needed: " + join(names) + " (attnlab --help says what each does)";
  } else if (parsed.empty() && !word.empty() && !known) {
    message = "unknown subcommand " + quote(word, '\'') + "; did you mean '" + closest_match(word, names) +
              "'? (subcommands: " + join(names) + ")";
  } else {
    // CLI11 quotes the values it refuses in full: keep the message to a readable length.
    message = (name.empty() ? "" : name + ": ") + shorten(error.what(), 300) + " (attnlab " +
              (name.empty() ? "" : name + " ") + "--help lists the options)";
  }
  std::fprintf(stderr, "attnlab: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"attnlab — a Transformer encoder–decoder trainer on a from-scratch autograd engine, "
               "made to be learned from."};
  app.require_subcommand(1);
  app.fallthrough();  // global options (--log-level) work after the subcommand too, inherited by every subcommand
  app.set_version_flag("--version", "attnlab 0.1.0");

  // The subcommands in the order of the course, which is the order `attnlab --help` lists them in. Each one's
  // options and help texts are in its own file (commands.h).
  const std::vector<attnlab::Subcommand> subcommands{
      attnlab::add_gradcheck_command(app),
      attnlab::add_corpus_command(app),
      attnlab::add_train_command(app),
      attnlab::add_translate_command(app),
      attnlab::add_eval_command(app),
      attnlab::add_trace_command(app),
      attnlab::add_attention_command(app),
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
    return refuse_command_line(app, error, argc, argv);
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
    std::fprintf(stderr, "attnlab: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
