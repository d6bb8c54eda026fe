// command_line.cpp — a command line CLI11 refused, said in one line: the closest subcommand to a mistyped one,
// or CLI11's own message kept to a readable length (main.cpp calls it; commands.h declares it).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "util/quote.h"
#include "util/suggest.h"

namespace attnlab {

namespace {

// The first word of the command line that is not an option (nor --log-level's value): the subcommand, if any.
std::string first_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--log-level") ++i;
    else if (!word.starts_with("-")) return word;
  }
  return "";
}

}  // namespace

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

}  // namespace attnlab
