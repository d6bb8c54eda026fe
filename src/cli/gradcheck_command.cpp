// gradcheck_command.cpp — `attnlab gradcheck [--op NAME [--explain]]`: every op's backward vs finite differences.
//
// Compiled in float64 (against attnlab64): see src/autograd/gradcheck.h for the method and the tolerance.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "autograd/gradcheck.h"
#include "cli/commands.h"
#include "gpt/checks.h"
#include "util/error.h"
#include "util/suggest.h"

namespace attnlab {

struct GradcheckCommandOptions {
  std::string op;         // empty: every op; otherwise only this op, with its gradients side by side
  bool explain = false;   // with op: a guided tour first (formula, derivative, a small input, its gradients)
};

namespace {

// printf's "%-34s" pads by bytes; names like "x ⊙ x" have multi-byte characters, so pad by characters.
std::string pad(const std::string& text, size_t width) {
  size_t characters = 0;
  for (unsigned char c : text) characters += (c & 0xC0) != 0x80;  // count UTF-8 lead bytes only
  return characters >= width ? text : text + std::string(width - characters, ' ');
}

void print_side_by_side(const GradcheckResult& r) {
  for (size_t k = 0; k < r.inputs.size(); ++k) {
    const InputComparison& in = r.inputs[k];
    std::printf("  input %zu %s\n", k, in.shape.str().c_str());
    std::printf("    %6s  %16s  %16s  %10s\n", "index", "analytic", "numeric", "abs error");
    size_t shown = std::min<size_t>(in.numeric.size(), 12);
    for (size_t i = 0; i < shown; ++i) {
      std::printf("    %6zu  %16.10f  %16.10f  %10.2e\n", i, in.analytic[i], in.numeric[i],
                  std::abs(in.analytic[i] - in.numeric[i]));
    }
    if (shown < in.numeric.size()) std::printf("    … %zu more\n", in.numeric.size() - shown);
  }
}

}  // namespace

int gradcheck_command(const GradcheckCommandOptions& options) {
  std::vector<GradcheckCase> cases = all_gradcheck_cases();
  std::set<std::string> names;
  for (const GradcheckCase& c : cases) names.insert(c.op);
  if (!options.op.empty() && !names.count(options.op)) {
    std::vector<std::string> known(names.begin(), names.end());
    throw Error("gradcheck: there is no op called '" + options.op + "' (did you mean '" +
                closest_match(options.op, known) + "'?). The ops are: " + join(known));
  }

  GradcheckOptions settings;
  if (options.explain) {
    auto first = std::find_if(cases.begin(), cases.end(), [&](const GradcheckCase& c) { return c.op == options.op; });
    std::printf("%s\n", explain_gradcheck(*first, settings).c_str());
    std::printf("Every check of %s:\n\n", options.op.c_str());
  }
  std::printf("Gradient check in float64: analytic (backward) vs central differences, h = %.0e,\n"
              "passing when |analytic - numeric| <= %.0e + %.0e * max(|analytic|, |numeric|)\n"
              "(max rel err: over the numbers where max(|analytic|, |numeric|) >= %.0e).\n\n",
              settings.step, settings.atol, settings.rtol, settings.atol);
  std::printf("%-22s %-34s %-28s %12s %12s  %s\n", "op", "case", "input shapes", "max abs err", "max rel err",
              "result");
  int passed = 0, failed = 0;
  for (const GradcheckCase& c : cases) {
    if (!options.op.empty() && c.op != options.op) continue;
    GradcheckResult r = run_gradcheck(c, settings);
    std::printf("%s %s %s %12.2e %12.2e  %s\n", pad(r.op, 22).c_str(), pad(r.what, 34).c_str(),
                pad(r.shapes, 28).c_str(),
                r.max_abs_error, r.max_rel_error, r.passed ? "PASS" : "FAIL");
    if (!r.passed) std::printf("  ↳ %s\n", r.problem.c_str());
    if (!options.op.empty() && !options.explain) print_side_by_side(r);
    (r.passed ? passed : failed)++;
  }
  std::printf("\n%d checks: %d passed, %d failed\n", passed + failed, passed, failed);
  return failed == 0 ? 0 : 1;
}

// `attnlab gradcheck`: its options and their help texts, read into GradcheckCommandOptions; main.cpp runs it.
Subcommand add_gradcheck_command(CLI::App& app) {
  auto options = std::make_shared<GradcheckCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "gradcheck",
      "Check every op's hand-written backward against central finite differences, in float64. Prints a table "
      "(op, case, input shapes, max absolute and relative error, PASS/FAIL); exits 1 if any check fails.");
  CLI::Option* op = subcommand->add_option(
      "--op", options->op, "Check only this op, and print its analytic and numeric gradients side by side");
  subcommand
      ->add_flag("--explain", options->explain,
                 "With --op: first a guided tour of the op — its formula and derivative, a small input, the "
                 "output, and the analytic and numeric gradients with their difference — then its checks")
      ->needs(op);
  return {subcommand, [options] { return gradcheck_command(*options); }};
}

}  // namespace attnlab
