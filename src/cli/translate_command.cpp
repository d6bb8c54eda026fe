// translate_command.cpp — `attnlab translate`: source sentences in, translations out.
//
// Sentences come from --text, or one per line from standard input; each translation is written to standard output
// on its own line, in input order. From a terminal each line is answered as it is typed (after a "> " prompt); from
// a file or a pipe every line is read first and the sentences are decoded in batches sorted by length
// (decode.batch_tokens, src/decode/batched.h), several times faster than one at a time. Decoding is the run's decode:
// section (greedy when decode.beam is 1, beam search otherwise); --beam, --alpha and --no-repeat-ngram override it.
// Each line goes through encode_line (src/run/run.h; translate_line adds translating and decoding): checked to be
// UTF-8, cleaned like the training text, cut with a warning naming the line when it has more tokens than the model
// reads at once.
//
// --intervene SPEC (repeatable; src/run/intervention_spec.h) translates with an experiment on the model: heads
// switched off, source words read as <unk>, a layer's weights from another checkpoint (src/model/intervention.h
// says what each means). Without it nothing changes, bit for bit. --log-prob adds each translation's log p(y | x)
// after a tab; --json writes one JSON object per sentence instead (source, translation, log_prob, interventions).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
#include "decode/batched.h"
#include "decode/greedy.h"
#include "decode/translate.h"
#include "decode/translation_log_prob.h"
#include "run/intervention_spec.h"
#include "run/run.h"

namespace attnlab {

struct TranslateCommandOptions {
  std::string run;                     // a run folder
  std::string text;                    // one sentence; empty: read lines from stdin
  std::string checkpoint = "best";     // best | latest | average | a checkpoint file
  std::string path;                    // paper | fused (empty: the run's model.path)
  int64_t beam = 0;                    // beam size; 0: the run's decode.beam (1 = greedy)
  double alpha = -1;                   // GNMT length penalty α; < 0: the run's decode.length_penalty
  int64_t no_repeat_ngram = -1;        // the repetition guard's N; < 0: the run's decode.no_repeat_ngram
  std::vector<std::string> interventions;   // --intervene SPECs (run/intervention_spec.h)
  bool log_prob = false;               // a tab and log p(y | x) after each translation
  bool json = false;                   // one JSON object per sentence
};

namespace {

// Writes one sentence's line: its translation (with --log-prob a tab and log p(y | x)), or with --json the object
// {"source", "translation", "log_prob", "interventions"}. log p is of the output under the model as the
// intervention left it, read from the source ids it was translated from (a masked word as <unk>).
struct SentenceWriter {
  LoadedRun& run;
  const TranslateCommandOptions& options;
  const Intervention& intervention;

  void write(const std::string& line, const std::vector<int32_t>& source_ids, const std::vector<int32_t>& output) const {
    const std::string translation = run.tokenizers.tgt->decode(output);
    if (!options.json && !options.log_prob) {
      std::printf("%s\n", translation.c_str());
      return;
    }
    const double log_prob = translation_log_prob(*run.model, source_ids, output);
    if (options.json) {
      const nlohmann::json object{{"source", line}, {"translation", translation}, {"log_prob", log_prob},
                                  {"interventions", intervention.described}};
      std::printf("%s\n", object.dump().c_str());
    } else {
      std::printf("%s\t%.6f\n", translation.c_str(), log_prob);
    }
  }
};

// One line's source ids (encode_line, run/run.h), with the intervention's masked words as <unk>.
std::vector<int32_t> source_ids_of(const LoadedRun& run, const Intervention& intervention, const std::string& line,
                                   const std::string& where) {
  return masked_source_ids(intervention, encode_line(run, line, where), where);
}

// translate_line's translation of one line's ids (run/run.h): no ids, no output.
std::vector<int32_t> translate_one(LoadedRun& run, const DecodeConfig& decode, const std::vector<int32_t>& ids) {
  if (ids.empty()) return {};
  return translate_ids(*run.model, pad_batch({ids}), decode)[0];
}

}  // namespace

int translate_command(const TranslateCommandOptions& options) {
  LoadedRun run = load_run(options.run, options.checkpoint);
  // --path (its word checked by CLI11) overrides the run's model.path.
  if (!options.path.empty()) run.model->use_compute_path(choice_named<ComputePath>(options.path).value());
  DecodeConfig decode = run.config.decode;              // the run's decode: section, unless overridden
  if (options.beam > 0) decode.beam = options.beam;
  if (options.alpha >= 0) decode.length_penalty = options.alpha;
  if (options.no_repeat_ngram >= 0) decode.no_repeat_ngram = options.no_repeat_ngram;
  const Intervention intervention =
      read_interventions(options.interventions, run, options.run, "--intervene", /*allow_paths=*/true);
  for (const std::string& line : intervention.described) std::fprintf(stderr, "intervention: %s\n", line.c_str());
  const InterventionScope scope(*run.model, intervention);   // the model as the experiment asks, until we return
  const SentenceWriter writer{run, options, intervention};
  if (!options.text.empty()) {
    const std::vector<int32_t> ids = source_ids_of(run, intervention, options.text, "--text");
    writer.write(options.text, ids, translate_one(run, decode, ids));
    return 0;
  }
  std::string line;
  int64_t line_number = 0;
  if (::isatty(STDIN_FILENO) == 1) {
    // A person typing: each line is answered as soon as it is entered.
    while (true) {
      std::fprintf(stderr, "> ");
      std::fflush(stderr);
      if (!std::getline(std::cin, line)) break;
      const std::vector<int32_t> ids = source_ids_of(run, intervention, line, "input line " + std::to_string(++line_number));
      writer.write(line, ids, translate_one(run, decode, ids));
      std::fflush(stdout);
    }
    return 0;
  }
  // A file or a pipe: every line first, then the sentences sorted by length and decoded in batches of
  // decode.batch_tokens (decode/batched.h), written back in input order.
  std::vector<std::string> lines;
  std::vector<std::vector<int32_t>> sources;
  while (std::getline(std::cin, line)) {
    sources.push_back(source_ids_of(run, intervention, line, "input line " + std::to_string(++line_number)));
    lines.push_back(line);
  }
  std::vector<std::vector<int32_t>> outputs = translate_batched(*run.model, sources, decode);
  for (size_t i = 0; i < outputs.size(); ++i) writer.write(lines[i], sources[i], outputs[i]);
  return 0;
}

// The decoding options translate and eval share: --alpha and --no-repeat-ngram, each left < 0 unless given, when
// it overrides the run's decode.length_penalty or decode.no_repeat_ngram.
void add_decode_overrides(CLI::App* subcommand, double& alpha, int64_t& no_repeat_ngram) {
  subcommand
      ->add_option("--alpha", alpha,
                   "GNMT length penalty α of beam search, lp = ((5 + |Y|) / 6)^α; 0 = none "
                   "(default: the run's decode.length_penalty)")
      ->check(CLI::Range(0.0, 100.0));
  subcommand
      ->add_option("--no-repeat-ngram", no_repeat_ngram,
                   "N: no n-gram of N tokens appears twice in a translation; 0 = off "
                   "(default: the run's decode.no_repeat_ngram)")
      ->check(CLI::Range(int64_t{0}, int64_t{1000}));
}

// `attnlab translate`: its options and their help texts, read into TranslateCommandOptions; main.cpp runs it.
Subcommand add_translate_command(CLI::App& app) {
  auto options = std::make_shared<TranslateCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "translate",
      "Translate with a trained run: --text \"...\", or one sentence per line from standard input; "
      "translations go to standard output, one per line.");
  subcommand->add_option("--run", options->run, "The run folder")->required();
  subcommand->add_option("--text", options->text, "One sentence to translate (otherwise read stdin)");
  subcommand
      ->add_option("--path", options->path,
                   "paper (the paper's chain of plain ops, for stepping through) or fused (the fast kernels); sets "
                   "model.path (default: the run's)")
      ->check(CLI::IsMember(choice_names(ComputePath{})));
  subcommand->add_option("--checkpoint", options->checkpoint,
                         "best (default), latest, average (attnlab average), or the path of a checkpoint file");
  subcommand->add_option("--beam", options->beam, "Beam size: 1 = greedy decoding (default: the run's decode.beam)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  add_decode_overrides(subcommand, options->alpha, options->no_repeat_ngram);
  subcommand->add_option(
      "--intervene", options->interventions,
      "Translate with an experiment on the model (repeatable): ablate:USE:L.H switches off head H of layer L "
      "(its output zeroed; USE cross, encoder or decoder; from 0; * for every layer or head, ablate:cross:* for "
      "all), mask:source:S reads source token S as <unk>, swap:SIDE.L=CHECKPOINT takes layer L of the encoder or "
      "decoder from best, latest, average, a step number or a checkpoint file. None: the plain translation, bit "
      "for bit (docs/guide/explorer-and-serve.md)");
  subcommand->add_flag("--log-prob", options->log_prob,
                       "After each translation a tab and its log-probability log p(translation </s> | source)");
  subcommand->add_flag("--json", options->json,
                       "One JSON object per sentence: source, translation, log_prob, interventions (what each "
                       "--intervene did, in words)");
  return {subcommand, [options] { return translate_command(*options); }};
}

}  // namespace attnlab
