// align_command.cpp — `attnlab align`: does attention explain? Every way the explorer draws attention, scored
// against the gold word alignments the toy grammar writes.
//
// Reads the run's --split (its config's data.<split>_src / _tgt) and the gold beside the target file
// (FILE.align, FILE.tags: src/data/alignment.h), teacher-forces the run's model on every reference and reads a
// hard alignment off each method (src/inspect/align/alignment_methods.h): every cross-attention head, their mean
// per layer, value norms, rollout, ALTI+, and on the first --gradient-limit pairs gradient × input and integrated
// gradients. Each is scored by AER, precision and recall (src/data/alignment_error.h), overall, on the pairs the
// model translates exactly by itself, and per phenomenon; and by the deletion test's AOPC
// (src/inspect/align/faithfulness.h) against a random ranking. Output: a table naming the best head and the best
// method, or with --json one object (src/inspect/align/alignment_output.h); --svg FILE draws AER by layer and head.
// With --checkpoints all every step checkpoint of the run is scored: AER per method and head beside the loss,
// against the step (a table, JSON {run, split, checkpoints: […]}, and with --svg the curves).
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cloze/cloze_training.h"
#include "gpt/language_model.h"
#include "inspect/align/alignment_output.h"
#include "inspect/align/alignment_report.h"
#include "run/run.h"
#include "train/checkpoint.h"
#include "util/error.h"
#include "util/files.h"

namespace attnlab {

namespace {

struct AlignCommandOptions {
  std::string run;                  // a run folder
  std::string split = "test";       // valid | test
  std::string checkpoint = "best";  // best | latest | average | a checkpoint file
  std::string checkpoints;          // "all": every step checkpoint instead
  int64_t limit = 0;                // the first N pairs (0: all)
  int64_t gradient_limit = 200;     // the gradient methods and the deletion test on the first N pairs
  int64_t ig_steps = 16;            // integrated gradients' steps
  bool json = false;
  std::string svg;                  // a picture file (empty: none)
};

std::string fixed(double value, const char* format = "%.3f") {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string padded(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

// The main table: one row per method, then the random ranking.
void print_methods(const AlignmentReport& report) {
  std::printf("%s  %6s %9s %7s %8s %7s %6s\n", padded("method", 22).c_str(), "AER", "precision", "recall", "AER own",
              "AOPC", "pairs");
  for (const MethodScore& m : report.methods) {
    const std::string aopc = m.deletion.words > 0 ? fixed(m.deletion.aopc()) : "-";
    const std::string own = m.own_sentences > 0 ? fixed(m.own.aer()) : "-";
    std::printf("%s  %6s %9s %7s %8s %7s %6lld\n", padded(m.name, 22).c_str(), fixed(m.reference.aer()).c_str(),
                fixed(m.reference.precision()).c_str(), fixed(m.reference.recall()).c_str(), own.c_str(), aopc.c_str(),
                static_cast<long long>(m.sentences));
  }
  if (report.random.words > 0) {
    std::printf("%s  %6s %9s %7s %8s %7s %6lld\n", padded("random ranking", 22).c_str(), "", "", "", "",
                fixed(report.random.aopc()).c_str(), static_cast<long long>(report.gradient_sentences));
  }
}

// AER per phenomenon: one row per method, one column per tag.
void print_phenomena(const AlignmentReport& report) {
  std::vector<std::string> tags;
  for (const MethodScore& m : report.methods) {
    for (const auto& [tag, counts] : m.phenomena) {
      if (std::find(tags.begin(), tags.end(), tag) == tags.end()) tags.push_back(tag);
    }
  }
  if (tags.empty()) return;
  std::printf("\nAER per phenomenon (over the words each tag concerns; teacher-forced on the reference):\n%s",
              padded("method", 22).c_str());
  for (const std::string& tag : tags) std::printf("  %s", padded(tag, 7).c_str());
  std::printf("\n");
  for (const MethodScore& m : report.methods) {
    std::printf("%s", padded(m.name, 22).c_str());
    for (const std::string& tag : tags) {
      auto found = m.phenomena.find(tag);
      std::printf("  %s", padded(found == m.phenomena.end() ? "-" : fixed(found->second.aer()), std::max<size_t>(7, tag.size())).c_str());
    }
    std::printf("\n");
  }
}

void print_report(const AlignmentReport& report, const AlignmentCorpus& corpus, const std::string& split) {
  std::printf("%s split: %s → %s, gold %s%s\n", split.c_str(), corpus.source_file.c_str(), corpus.target_file.c_str(),
              corpus.alignment_file.c_str(), corpus.tags_file.empty() ? " (no .tags: no per-phenomenon scores)" : "");
  std::printf("checkpoint %s (step %lld); teacher-forced loss %.4f nats per target token\n", report.checkpoint.c_str(),
              static_cast<long long>(report.step), report.loss);
  std::printf("%lld pairs teacher-forced on the reference; the model's own translation equals it on %lld (AER own)\n",
              static_cast<long long>(report.sentences), static_cast<long long>(report.own_sentences));
  if (report.skipped_empty + report.skipped_long > 0) {
    std::printf("skipped: %lld pairs with an empty side, %lld longer than the model's positions\n",
                static_cast<long long>(report.skipped_empty), static_cast<long long>(report.skipped_long));
  }
  std::printf("gradient_x_input, integrated_gradients (%lld steps) and the deletion test (k = 1 … %lld, every target "
              "word): the first %lld pairs only\n\n",
              static_cast<long long>(report.integration_steps), static_cast<long long>(report.deletions),
              static_cast<long long>(report.gradient_sentences));
  print_methods(report);
  std::printf("AER: 0 = every sure link found and none outside the possible ones. AOPC: the mean fall of log p(word), "
              "in nats, as the method's top 1 … %lld source words are replaced by <unk> (higher = more faithful)\n",
              static_cast<long long>(report.deletions));
  print_phenomena(report);
  const MethodScore* head = best_method(report, "head");
  const MethodScore* best = best_method(report);
  std::printf("\nbest head: %s (AER %s); best method: %s (AER %s)\n", head ? head->name.c_str() : "-",
              head ? fixed(head->reference.aer()).c_str() : "-", best ? best->name.c_str() : "-",
              best ? fixed(best->reference.aer()).c_str() : "-");
  for (const std::string& note : report.notes) std::printf("note: %s\n", note.c_str());
  std::printf("time: translation %.1f s; attention-based methods %.1f s for %lld pairs; gradient methods %.1f s and "
              "deletion test %.1f s for %lld\n",
              report.seconds_translation, report.seconds_attention, static_cast<long long>(report.sentences),
              report.seconds_gradient, report.seconds_deletion, static_cast<long long>(report.gradient_sentences));
}

// --checkpoints all: one row per checkpoint, one AER column per method (a key names the columns).
void print_training(const std::vector<AlignmentReport>& reports) {
  const std::vector<MethodScore>& methods = reports.back().methods;
  std::printf("AER against the gold at every step checkpoint (teacher-forced on the reference):\n%8s  %7s",
              "step", "loss");
  for (size_t m = 0; m < methods.size(); ++m) std::printf(" %6s", ("m" + std::to_string(m + 1)).c_str());
  std::printf("\n");
  for (const AlignmentReport& report : reports) {
    std::printf("%8lld  %7.4f", static_cast<long long>(report.step), report.loss);
    for (const MethodScore& method : methods) {
      std::string aer = "-";
      for (const MethodScore& m : report.methods) {
        if (m.name == method.name) aer = fixed(m.reference.aer());
      }
      std::printf(" %6s", aer.c_str());
    }
    std::printf("\n");
  }
  std::printf("columns:");
  for (size_t m = 0; m < methods.size(); ++m) std::printf(" m%zu = %s%s", m + 1, methods[m].name.c_str(), m + 1 < methods.size() ? "," : "\n");
}

std::vector<std::string> step_checkpoints(const std::string& run_dir) {
  std::vector<std::string> files = CheckpointDirectory(checkpoints_dir(run_dir), 1).step_files();
  if (files.empty()) {
    throw Error(run_dir + " has no step checkpoints in " + checkpoints_dir(run_dir) + "; train.checkpoint_every and " +
                "train.keep_last say how many a run keeps");
  }
  return files;
}

AlignmentScoreOptions score_options(const AlignCommandOptions& options) {
  AlignmentScoreOptions score;
  score.limit = options.limit, score.gradient_limit = options.gradient_limit;
  score.integration_steps = options.ig_steps;
  return score;
}

int align_checkpoints(const AlignCommandOptions& options, const AlignmentCorpus& corpus) {
  const std::vector<std::string> files = step_checkpoints(options.run);
  std::vector<AlignmentReport> reports;
  for (size_t n = 0; n < files.size(); ++n) {
    spdlog::info("align: checkpoint {} of {}: {}", n + 1, files.size(), files[n]);
    LoadedRun run = load_run(options.run, files[n]);
    reports.push_back(score_alignments(run, corpus, score_options(options)));
  }
  if (!options.svg.empty()) write_file_atomically(options.svg, alignment_training_svg(reports, options.run + " · " + options.split));
  if (options.json) {
    nlohmann::json out{{"run", options.run}, {"split", options.split}, {"checkpoints", nlohmann::json::array()}};
    for (const AlignmentReport& report : reports) out["checkpoints"].push_back(alignment_json(report));
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  print_training(reports);
  for (const std::string& note : reports.back().notes) std::printf("note: %s\n", note.c_str());
  if (!options.svg.empty()) std::printf("picture written to %s\n", options.svg.c_str());
  return 0;
}

int align_command(const AlignCommandOptions& options) {
  if (is_cloze_run(options.run)) throw Error("attnlab align scores translation runs; " + options.run + " is a cloze run");
  if (is_language_model_run(options.run)) {
    throw Error("attnlab align scores a translation's cross-attention against gold word alignments; " + options.run +
                " is a language model, which has no source to align to");
  }
  const RunConfig config = load_run_config(options.run);
  const AlignmentCorpus corpus = read_alignment_corpus(config, options.split);
  if (!options.checkpoints.empty()) return align_checkpoints(options, corpus);
  LoadedRun run = load_run(options.run, options.checkpoint);
  const AlignmentReport report = score_alignments(run, corpus, score_options(options));
  if (!options.svg.empty()) {
    write_file_atomically(options.svg, alignment_heads_svg(report, "AER of each cross-attention head · " + options.run +
                                                                       " · " + options.split + " (darker = further from the gold)"));
  }
  if (options.json) {
    nlohmann::json out = alignment_json(report);
    out["run"] = options.run, out["split"] = options.split;
    std::printf("%s\n", out.dump().c_str());
    return 0;
  }
  print_report(report, corpus, options.split);
  if (!options.svg.empty()) std::printf("picture written to %s\n", options.svg.c_str());
  return 0;
}

}  // namespace

// `attnlab align`: its options and their help texts; main.cpp runs it.
Subcommand add_align_command(CLI::App& app) {
  auto options = std::make_shared<AlignCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "align",
      "Score every way attnlab draws attention against gold word alignments (the .align and .tags files "
      "`attnlab corpus --task toy-en-fr` writes beside the text): each cross-attention head, their mean per layer, "
      "value norms, rollout, ALTI+, gradient x input and integrated gradients, each read as a hard alignment (every "
      "target word to its highest-scoring source word), teacher-forced on the reference. Reports AER, precision and "
      "recall (overall, on the pairs the model translates exactly by itself, and per phenomenon) and the deletion "
      "test's AOPC against a random ranking; names the best head and the best method. --checkpoints all scores "
      "every step checkpoint instead: AER against the step, beside the loss.");
  subcommand->add_option("--run", options->run, "The run folder")->required();
  subcommand->add_option("--split", options->split, "Which split of the run's config to score (default test)")
      ->check(CLI::IsMember({"valid", "test"}));
  CLI::Option* one = subcommand->add_option(
      "--checkpoint", options->checkpoint, "best (default), latest, average (attnlab average), or the path of a checkpoint file");
  subcommand
      ->add_option("--checkpoints", options->checkpoints,
                   "all: score every step checkpoint of the run (RUN/checkpoints/step-*.safetensors), oldest first; "
                   "each costs a whole scoring, gradient methods included (lower --gradient-limit to go faster)")
      ->check(CLI::IsMember({"all"}))
      ->excludes(one);
  subcommand->add_option("--limit", options->limit, "Score only the first N pairs of the split (default 0: all)")
      ->check(CLI::Range(int64_t{0}, int64_t{100000000}));
  subcommand
      ->add_option("--gradient-limit", options->gradient_limit,
                   "Gradient x input, integrated gradients and the deletion test on the first N scored pairs only "
                   "(default 200; 0: none): they cost T backward passes, or a batch of deletions, per pair")
      ->check(CLI::Range(int64_t{0}, int64_t{100000000}));
  subcommand
      ->add_option("--ig-steps", options->ig_steps, "Integrated gradients' steps m (default 16)")
      ->check(CLI::Range(int64_t{1}, int64_t{256}));
  subcommand->add_flag("--json", options->json, "Print one JSON object instead of the table");
  subcommand->add_option("--svg", options->svg,
                         "Also draw a picture into FILE: AER by decoder layer and head (with --checkpoints all: AER "
                         "and loss against the step)");
  return {subcommand, [options] { return align_command(*options); }};
}

}  // namespace attnlab
