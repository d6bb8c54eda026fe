// main.cpp — the `attnlab` command: parses the command line and hands each subcommand to its function.
//
// Library code logs through spdlog; only this front end writes results to stdout. Any attnlab::Error (bad
// input: a missing file, a malformed checkpoint, a shape that does not fit) ends the program with its one-line
// message on stderr and exit code 1; a command-line mistake exits with CLI11's message and code.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "tensor/error.h"

int main(int argc, char** argv) {
  CLI::App app{"attnlab — a Transformer encoder–decoder trainer on a from-scratch autograd engine, "
               "made to be learned from."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "attnlab 0.1.0");

  attnlab::GradcheckCommandOptions gradcheck;
  CLI::App* gradcheck_app = app.add_subcommand(
      "gradcheck",
      "Check every op's hand-written backward against central finite differences, in float64. Prints a table "
      "(op, case, input shapes, max absolute and relative error, PASS/FAIL); exits 1 if any check fails.");
  gradcheck_app->add_option("--op", gradcheck.op,
                            "Check only this op, and print its analytic and numeric gradients side by side");

  CLI11_PARSE(app, argc, argv);

  try {
    if (*gradcheck_app) return attnlab::gradcheck_command(gradcheck);
  } catch (const attnlab::Error& e) {
    std::fprintf(stderr, "attnlab: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
