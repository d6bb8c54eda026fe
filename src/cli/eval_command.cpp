// eval_command.cpp — `attnlab eval`: translate a test set with a trained run and score the translations.
//
// The text is the run's --split (its config's data.valid_* / data.test_*) or a --src / --ref pair of
// line-aligned files. The translations are written one per line, into the run folder (RUN/eval-SPLIT.hyp, or
// RUN/eval-NAME.hyp for --src NAME) unless --out says otherwise (the file is named in the output); the scores
// go to standard output as a table, or with --json as one JSON object with the keys
//   bleu chrf exact_match loss perplexity token_accuracy sentences beam length_penalty no_repeat_ngram
//   hypotheses_file
//   attention_entropy
// and, for a model with hard attention, hard_eval: {argmax, sample, expectation}, each {exact_match, bleu, chrf,
// attention_entropy_cross} — the same weights evaluated by the argmax key, a sampled key and the expectation
// (lab/evaluate.h says why). tools/compare.sh reads that object. What each number means: src/lab/evaluate.h and
// docs/guide/decoding-and-evaluation.md.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cloze/cloze_training.h"
#include "data/corpus.h"
#include "lab/evaluate.h"
#include "run/run.h"
#include "util/error.h"
#include "util/files.h"

namespace attnlab {
namespace {

struct EvalText {
  std::vector<std::string> sources, references;
  std::string description, hypotheses_file;
  std::function<std::string(size_t)> name_source;   // for error messages: "line 7 of test.en"
};

// Line-aligned files, every line kept (an empty source line gets an empty translation), so that line i of the
// hypotheses file translates line i of the source file.
EvalText read_pair(const std::string& src, const std::string& ref, const std::string& hypotheses_file) {
  EvalText text{read_lines(src), read_lines(ref), src + " → " + ref, hypotheses_file,
                [src](size_t i) { return "line " + std::to_string(i + 1) + " of " + src; }};
  if (text.sources.size() != text.references.size()) {
    throw Error(src + " has " + std::to_string(text.sources.size()) + " lines but " + ref + " has " +
                std::to_string(text.references.size()) + "; line i of the references must translate line i of the " +
                "sources");
  }
  return text;
}

EvalText split_text(const RunConfig& config, const std::string& split, const std::string& run_dir) {
  const DataConfig& data = config.data;
  const bool valid = split == "valid";
  const std::string& src = valid ? data.valid_src : data.test_src;
  const std::string& tgt = valid ? data.valid_tgt : data.test_tgt;
  const std::string& tsv = valid ? data.valid_tsv : data.test_tsv;
  const std::string hypotheses_file = run_dir + "/eval-" + split + ".hyp";
  if (src.empty() && tgt.empty() && tsv.empty()) {
    throw Error("the run's config (" + run_dir + "/config.yaml) has no " + split + " split: data." + split +
                "_src / data." + split + "_tgt and data." + split + "_tsv are empty; give --src FILE --ref FILE");
  }
  if (tsv.empty() && !src.empty() && !tgt.empty()) return read_pair(src, tgt, hypotheses_file);
  // A TSV split is read as training reads it (pairs with an empty side are skipped, so pairs are not lines).
  ParallelText text = load_split(data, split);
  const std::string description = text.description;
  return EvalText{text.src, text.tgt, description, hypotheses_file, [description](size_t i) {
                    return "pair " + std::to_string(i + 1) + " of " + description + " (not counting empty pairs)";
                  }};
}

std::string format_or_dash(bool known, double value, const char* format) {
  if (!known) return "-";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

// The scores as one JSON object (--json; the keys are listed at the top of this file).
void print_json(const EvalResult& result, const std::vector<HardEvalResult>& hard, const EvalText& text,
                const LoadedRun& run, int64_t beam) {
  const bool teacher_forced = result.teacher_forced_pairs > 0;  // otherwise loss & co. are unknown (null)
  auto known = [&](double value) { return teacher_forced ? nlohmann::json(value) : nlohmann::json(nullptr); };
  nlohmann::json out{{"bleu", result.bleu},
                     {"chrf", result.chrf},
                     {"exact_match", result.exact_match},
                     {"loss", known(result.teacher_forced.loss)},
                     {"perplexity", known(result.teacher_forced.perplexity)},
                     {"token_accuracy", known(result.teacher_forced.token_accuracy)},
                     {"sentences", result.sentences},
                     {"beam", beam},
                     {"length_penalty", run.config.decode.length_penalty},
                     {"no_repeat_ngram", run.config.decode.no_repeat_ngram},
                     {"hypotheses_file", text.hypotheses_file},
                     {"attention_entropy",
                      {{"encoder", known(result.attention_entropy.encoder)},
                       {"decoder", known(result.attention_entropy.decoder)},
                       {"cross", known(result.attention_entropy.cross)}}}};
  for (const HardEvalResult& h : hard) {
    out["hard_eval"][name_of(h.mode)] = {{"exact_match", h.result.exact_match},
                                         {"bleu", h.result.bleu},
                                         {"chrf", h.result.chrf},
                                         {"attention_entropy_cross", known(h.result.attention_entropy.cross)}};
  }
  std::printf("%s\n", out.dump().c_str());
}

// The scores as a table, one measure a line, and where the translations went.
void print_table(const EvalResult& result, const std::vector<HardEvalResult>& hard, const EvalText& text,
                 const LoadedRun& run, int64_t beam) {
  const bool teacher_forced = result.teacher_forced_pairs > 0;  // otherwise loss & co. are unknown ("-")
  const AttentionEntropy& h = result.attention_entropy;
  std::printf("%s, checkpoint %s (step %lld)\n", text.description.c_str(), run.checkpoint_path.c_str(),
              static_cast<long long>(run.step));
  std::printf("  sentences        %lld  (beam %lld", static_cast<long long>(result.sentences),
              static_cast<long long>(beam));
  if (beam > 1) std::printf(", length penalty α %g", run.config.decode.length_penalty);  // greedy has none
  std::printf(")\n");
  std::printf("  BLEU             %.2f   (sacreBLEU default: 13a tokens, exp smoothing)\n", result.bleu);
  std::printf("  chrF             %.2f   (character 6-grams, beta 2)\n", result.chrf);
  std::printf("  exact match      %.1f%%\n", 100 * result.exact_match);
  std::printf("  loss             %s   (teacher forced, %lld pairs)\n",
              format_or_dash(teacher_forced, result.teacher_forced.loss, "%.4f").c_str(),
              static_cast<long long>(result.teacher_forced_pairs));
  std::printf("  perplexity       %s\n",
              format_or_dash(teacher_forced, result.teacher_forced.perplexity, "%.2f").c_str());
  std::printf("  token accuracy   %s\n",
              format_or_dash(teacher_forced, 100 * result.teacher_forced.token_accuracy, "%.1f%%").c_str());
  std::printf("  attention entropy (nats)  encoder %s  decoder %s  cross %s\n",
              format_or_dash(teacher_forced, h.encoder, "%.3f").c_str(),
              format_or_dash(teacher_forced, h.decoder, "%.3f").c_str(),
              format_or_dash(teacher_forced, h.cross, "%.3f").c_str());
  if (!hard.empty()) std::printf("  hard attention, the same weights evaluated three ways (hard_eval):\n");
  for (const HardEvalResult& r : hard) {
    std::printf("    %-12s exact match %5.1f%%  BLEU %6.2f  chrF %6.2f\n", name_of(r.mode).c_str(),
                100 * r.result.exact_match, r.result.bleu, r.result.chrf);
  }
  std::printf("hypotheses written to %s\n", text.hypotheses_file.c_str());
}

}  // namespace

int eval_command(const EvalCommandOptions& options) {
  if (is_cloze_run(options.run)) return cloze_eval_command(options);   // a reader, not a translator
  const bool use_split = !options.split.empty();
  const bool use_files = !options.src.empty() || !options.ref.empty();
  if (use_split == use_files) {
    throw Error("attnlab eval needs either --split valid|test or both --src FILE and --ref FILE");
  }
  if (use_files && (options.src.empty() || options.ref.empty())) {
    throw Error(std::string("--") + (options.src.empty() ? "ref" : "src") + " needs --" +
                (options.src.empty() ? "src" : "ref") + " too (source and reference files go together)");
  }
  LoadedRun run = load_run(options.run, options.checkpoint);
  // --path (its word checked by CLI11) overrides the run's model.path.
  if (!options.path.empty()) run.model->use_compute_path(choice_named<ComputePath>(options.path).value());
  EvalText text = use_split ? split_text(run.config, options.split, options.run)
                            : read_pair(options.src, options.ref,
                                        options.run + "/eval-" + std::filesystem::path(options.src).filename().string() +
                                            ".hyp");  // in the run folder: --src may sit in a shared or read-only one
  if (text.sources.empty()) throw Error(text.description + ": no sentences to evaluate");
  if (!options.out.empty()) text.hypotheses_file = options.out;
  const int64_t beam = options.beam.value_or(run.config.decode.beam);
  if (options.no_repeat_ngram >= 0) run.config.decode.no_repeat_ngram = options.no_repeat_ngram;
  if (options.alpha >= 0) run.config.decode.length_penalty = options.alpha;

  EvalResult result = evaluate(run, text.sources, text.references, beam, text.name_source);
  std::string hypotheses;
  for (const std::string& line : result.hypotheses) hypotheses += line + "\n";
  write_file_atomically(text.hypotheses_file, hypotheses);

  const std::vector<HardEvalResult> hard =
      evaluate_hard_modes(run, text.sources, text.references, beam, text.name_source);
  if (options.json) {
    print_json(result, hard, text, run, beam);
  } else {
    print_table(result, hard, text, run, beam);
  }
  return 0;
}

// `attnlab eval`: its options and their help texts, read into EvalCommandOptions; main.cpp runs it.
Subcommand add_eval_command(CLI::App& app) {
  auto options = std::make_shared<EvalCommandOptions>();
  auto beam = std::make_shared<int64_t>(1);   // --beam as given; options->beam stays empty without it
  CLI::App* subcommand = app.add_subcommand(
      "eval",
      "Evaluate a trained run: translate --split valid|test (from the run's config) or --src FILE with --ref FILE, "
      "write the translations one per line, and report BLEU, chrF, exact match, teacher-forced loss, perplexity, "
      "token accuracy and attention entropy (a table, or one JSON object with --json). A cloze run (model.task: "
      "cloze) reports instead, on --split valid|test, its accuracy, loss and the most-frequent-noun baseline.");
  subcommand->add_option("--run", options->run, "The run folder")->required();
  subcommand->add_option("--split", options->split, "Which split of the run's config to translate")
      ->check(CLI::IsMember({"valid", "test"}));
  subcommand->add_option("--src", options->src, "Source sentences, one per line (instead of --split; needs --ref)");
  subcommand->add_option("--ref", options->ref, "Reference translations, line-aligned with --src");
  CLI::Option* beam_option =
      subcommand->add_option("--beam", *beam, "Beam size (1 = greedy; default: the run's decode.beam)")
          ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  add_decode_overrides(subcommand, options->alpha, options->no_repeat_ngram);
  subcommand
      ->add_option("--path", options->path,
                   "paper (the paper's chain of plain ops, for stepping through) or fused (the fast kernels); sets "
                   "model.path (default: the run's)")
      ->check(CLI::IsMember(choice_names(ComputePath{})));
  subcommand->add_option("--checkpoint", options->checkpoint,
                         "best (default), latest, average (attnlab average), or the path of a checkpoint file");
  subcommand->add_flag("--json", options->json, "Print one JSON object instead of a table");
  subcommand->add_option(
      "--out", options->out,
      "Where to write the translations (default: RUN/eval-SPLIT.hyp, or RUN/eval-NAME.hyp for --src NAME)");
  return {subcommand, [options, beam, beam_option] {
            if (beam_option->count() > 0) options->beam = *beam;
            return eval_command(*options);
          }};
}

}  // namespace attnlab
