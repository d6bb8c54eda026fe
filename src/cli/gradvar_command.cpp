// gradvar_command.cpp — `attnlab gradvar`: the mean and the variance of a parameter's gradient over K repeated
// gradients, at several points of training, for one or more runs (src/lab/gradient_variance.h says what is
// measured and how). Prints a table, or with --json one JSON object; with --out DIR also writes DIR/gradvar.md (the
// table and the command) and DIR/gradvar.svg (the signal-to-noise ratio against the step, every run and source).
//
// Besides each parameter's row, a row "all" per (run, step, source) sums ‖ḡ‖² and tr Σ̂ over the chosen
// parameters — the statistics of all of them as one vector — and its SNR is the one the plot draws.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "lab/gradient_variance.h"
#include "util/error.h"
#include "util/files.h"
#include "util/svg_plot.h"

namespace attnlab {

struct GradvarCommandOptions {
  std::vector<std::string> runs;       // run folders (translation runs)
  std::vector<int64_t> steps;          // 0 = the initial weights, or steps with a checkpoint; empty: 0 and all
  std::vector<std::string> parameters; // empty: every cross-attention q_proj and k_proj weight
  int64_t samples = 32;                // K gradients per row
  std::vector<std::string> sources;    // batch | batches; empty: both
  uint64_t seed = 1;                   // hard attention's sampling
  bool json = false;                   // one JSON object instead of the table
  std::string out;                     // folder for gradvar.md and gradvar.svg (empty: none)
  std::string command_line;            // as typed, for gradvar.md
};

namespace {

struct Row {
  std::string run;
  GradientVarianceRow row;
};

// Per (run, step, source): the sum over the parameters, as the row "all".
std::vector<Row> with_totals(const std::vector<Row>& rows) {
  std::vector<Row> out;
  for (size_t i = 0; i < rows.size();) {
    size_t end = i;
    Row total{rows[i].run, {rows[i].row.step, "all", rows[i].row.source, {}}};
    total.row.statistics.samples = rows[i].row.statistics.samples;
    while (end < rows.size() && rows[end].run == rows[i].run && rows[end].row.step == rows[i].row.step &&
           rows[end].row.source == rows[i].row.source) {
      const GradientStatistics& s = rows[end].row.statistics;
      total.row.statistics.numbers += s.numbers;
      total.row.statistics.mean_norm2 += s.mean_norm2;
      total.row.statistics.variance_trace += s.variance_trace;
      out.push_back(rows[end++]);
    }
    if (end - i > 1) out.push_back(total);
    i = end;
  }
  return out;
}

std::string format(const char* pattern, double value) {
  if (std::isinf(value)) return "inf";
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string markdown_table(const std::vector<Row>& rows) {
  std::string text = "| run | step | source | parameter | ‖ḡ‖² | tr Σ̂ | SNR = ‖ḡ‖² / tr Σ̂ |\n"
                     "|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    const GradientStatistics& s = r.row.statistics;
    text += "| " + r.run + " | " + std::to_string(r.row.step) + " | " + r.row.source + " | " + r.row.parameter +
            " | " + format("%.3g", s.mean_norm2) + " | " + format("%.3g", s.variance_trace) + " | " +
            format("%.3g", s.snr()) + " |\n";
  }
  return text;
}

// SNR of the "all" rows (or of the one parameter) against the step: one line per run and source. SNR = ∞ (no
// noise: soft attention on one batch) has no place on a log axis and is left out (the table shows it).
std::string snr_plot(const std::vector<Row>& rows, int64_t samples) {
  LogLogPlot plot;
  plot.log_x = false;
  plot.title = "Gradient signal-to-noise, SNR = ‖ḡ‖² / tr Σ̂ (K = " + std::to_string(samples) + ")";
  plot.x_label = "training step";
  plot.y_label = "SNR (log scale)";
  std::map<std::string, size_t> index;
  std::map<std::string, bool> several;   // does this (run, step, source) have an "all" row?
  for (const Row& r : rows) {
    if (r.row.parameter == "all") several[r.run + " " + r.row.source] = true;
  }
  for (const Row& r : rows) {
    const std::string key = r.run + " " + r.row.source;
    if (several[key] != (r.row.parameter == "all")) continue;
    const double snr = r.row.statistics.snr();
    if (!(snr > 0) || std::isinf(snr)) continue;
    if (!index.count(key)) {
      index[key] = plot.series.size();
      plot.series.push_back({r.run + ", " + (r.row.source == "batch" ? "one batch" : "K batches"), {}, {}});
    }
    plot.series[index[key]].x.push_back(static_cast<double>(r.row.step));
    plot.series[index[key]].y.push_back(snr);
  }
  const double floor = 1.0 / static_cast<double>(samples);
  plot.series.push_back({"1/K (no signal)", {0, 1}, {floor, floor}, true});
  double last_step = 0;
  for (const Row& r : rows) last_step = std::max(last_step, static_cast<double>(r.row.step));
  plot.series.back().x[1] = last_step > 0 ? last_step : 1;
  return loglog_svg(plot);
}

}  // namespace

int gradvar_command(const GradvarCommandOptions& options) {
  if (options.runs.empty()) throw Error("attnlab gradvar needs --run RUN (one or more)");
  std::vector<Row> rows;
  for (const std::string& run : options.runs) {
    GradientVarianceRequest request;
    request.run_dir = run;
    request.steps = options.steps;
    request.parameters = options.parameters;
    request.samples = options.samples;
    if (!options.sources.empty()) request.sources = options.sources;
    request.seed = options.seed;
    const std::string name = std::filesystem::path(run).filename().string();
    for (GradientVarianceRow& r : measure_gradient_variance(request)) rows.push_back({name, std::move(r)});
  }
  rows = with_totals(rows);

  if (options.json) {
    nlohmann::json out{{"samples", options.samples}, {"rows", nlohmann::json::array()}};
    for (const Row& r : rows) {
      const GradientStatistics& s = r.row.statistics;
      out["rows"].push_back({{"run", r.run}, {"step", r.row.step}, {"source", r.row.source},
                             {"parameter", r.row.parameter}, {"numbers", s.numbers}, {"mean_norm2", s.mean_norm2},
                             {"variance_trace", s.variance_trace},
                             {"snr", std::isinf(s.snr()) ? nlohmann::json(nullptr) : nlohmann::json(s.snr())}});
    }
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("K = %lld gradients per row; dropout off; before clipping; SNR ~ 1/K = %.3g means no signal "
                "(src/lab/gradient_variance.h)\n%s",
                static_cast<long long>(options.samples), 1.0 / static_cast<double>(options.samples),
                markdown_table(rows).c_str());
  }
  if (!options.out.empty()) {
    std::filesystem::create_directories(options.out);
    write_file_atomically(options.out + "/gradvar.md",
                          "# Gradient signal and noise\n\nMade by `" + options.command_line + "`.\nK = " +
                              std::to_string(options.samples) + " gradients per row, dropout off, before clipping; "
                              "SNR ≈ 1/K means no signal (src/lab/gradient_variance.h).\n\n" +
                              markdown_table(rows) + "\n![SNR against the step](gradvar.svg)\n");
    write_file_atomically(options.out + "/gradvar.svg", snr_plot(rows, options.samples));
    std::fprintf(stderr, "attnlab gradvar: wrote %s/gradvar.md and %s/gradvar.svg\n", options.out.c_str(),
                 options.out.c_str());
  }
  return 0;
}

// `attnlab gradvar`: its options and their help texts, read into GradvarCommandOptions; main.cpp runs it.
Subcommand add_gradvar_command(CLI::App& app, int argc, char** argv) {
  auto options = std::make_shared<GradvarCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "gradvar",
      "How noisy is a parameter's gradient? At each chosen step of a run (its step checkpoints; 0 = the initial "
      "weights), K gradients (as training computes them, before clipping, dropout off) of each parameter: of one "
      "training batch K times (source 'batch': only hard attention's sampling varies) and of K different batches "
      "('batches'). Prints per row ‖ḡ‖² (the mean gradient's squared length), tr Σ̂ (the sample covariance's "
      "trace: one gradient's expected squared distance from the mean) and SNR = ‖ḡ‖² / tr Σ̂ (≈ 1/K: no signal). "
      "docs/course/05-attention.md and src/lab/gradient_variance.h explain it.");
  subcommand->add_option("--run", options->runs, "A run folder (repeatable: several runs in one table and plot)")
      ->required();
  subcommand->add_option("--param", options->parameters,
                         "A parameter name, e.g. decoder.layers.0.encoder_attn.q_proj.weight (repeatable; default: "
                         "W_Q and W_K of every cross-attention)");
  subcommand->add_option("--samples", options->samples, "K, gradients per row (default 32; at least 2)");
  subcommand
      ->add_option("--steps", options->steps,
                   "Steps to measure, comma-separated, e.g. 0,500,1500 (default: 0 and every step checkpoint)")
      ->delimiter(',');
  subcommand->add_option("--source", options->sources, "batch or batches (repeatable; default both)")
      ->check(CLI::IsMember({"batch", "batches"}));
  subcommand->add_option("--seed", options->seed, "Seed of hard attention's sampling (default 1)");
  subcommand->add_flag("--json", options->json, "Print one JSON object instead of the table");
  subcommand->add_option("--out", options->out, "Also write DIR/gradvar.md and DIR/gradvar.svg (SNR by step)");
  return {subcommand, [options, argc, argv] {
            options->command_line = "attnlab";
            for (int i = 1; i < argc; ++i) options->command_line += " " + std::string(argv[i]);
            return gradvar_command(*options);
          }};
}

}  // namespace attnlab
