// average_command.cpp — `attnlab average`: one checkpoint whose weights are the mean of several of a run's
// (θ̄ = (1/N) Σ θ_i, src/run/checkpoint_average.h).
//
// --last N averages the run's N newest step checkpoints (the default, N = 5, as the Transformer paper did for
// its base model), a stop checkpoint under half of train.checkpoint_every after a regular one counting as one
// with it (checkpoint_average.h); --best N the N step checkpoints with the lowest validation loss in
// metrics.jsonl. The result goes to RUN/checkpoints/average.safetensors (or --out), which translate, eval, trace
// and attention read with `--checkpoint average` (or its path). It prints the files averaged and the file written.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "run/checkpoint_average.h"
#include "run/run.h"
#include "util/error.h"

namespace attnlab {

struct AverageCommandOptions {
  std::string run;   // a run folder
  int64_t last = 0;  // the last N step checkpoints (0: not given)
  int64_t best = 0;  // the N step checkpoints with the lowest validation loss (0: not given)
  std::string out;   // where to write; empty: RUN/checkpoints/average.safetensors
};

int average_command(const AverageCommandOptions& options) {
  if (options.last > 0 && options.best > 0) throw Error("average: give --last N or --best N, not both");
  const int64_t last = options.last > 0 ? options.last : 5;
  const std::vector<std::string> chosen =
      options.best > 0 ? best_checkpoints(options.run, options.best)
                       : last_checkpoints(options.run, last, load_run_config(options.run).train.checkpoint_every);
  const std::string out = options.out.empty() ? average_checkpoint_path(options.run) : options.out;
  average_checkpoints(chosen, out);
  for (const std::string& path : chosen) std::printf("averaged %s\n", path.c_str());
  std::printf("wrote %s (the mean of %zu checkpoints)\n", out.c_str(), chosen.size());
  return 0;
}

// `attnlab average`: its options and their help texts, read into AverageCommandOptions; main.cpp runs it.
Subcommand add_average_command(CLI::App& app) {
  auto options = std::make_shared<AverageCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "average",
      "Average a run's checkpoints: writes RUN/checkpoints/average.safetensors, whose weights are the mean of the "
      "last N (or the N best) step checkpoints; translate and eval read it with --checkpoint average.");
  subcommand->add_option("--run", options->run, "The run folder")->required();
  subcommand
      ->add_option("--last", options->last,
                   "Average the N newest step checkpoints (default 5); a stop checkpoint less than half of "
                   "train.checkpoint_every after a regular one counts as one with it, the newer")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  subcommand
      ->add_option("--best", options->best,
                   "Average the N step checkpoints with the lowest validation loss (metrics.jsonl)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  subcommand->add_option("--out", options->out,
                         "Where to write the averaged checkpoint (default RUN/checkpoints/average.safetensors)");
  return {subcommand, [options] { return average_command(*options); }};
}

}  // namespace attnlab
