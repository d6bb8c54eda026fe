// report_command.cpp — `attnlab report`: one self-contained HTML page about a run (src/inspect/pages/report.h).
//
// Reads DIR/metrics.jsonl for the curves, translates the first few sentences of the run's test split (its
// validation split when it has no test split; paths as in DIR/config.yaml, relative to the current folder) and
// records the attention of one sentence (--text, or the first sample). Writes --out (default DIR/report.html).
// A language model's run gets greedy continuations of its test text's first words instead, and the attention
// over one text (src/gpt/language_model_maps.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "data/corpus.h"
#include "gpt/language_model.h"
#include "gpt/language_model_maps.h"
#include "inspect/pages/report.h"
#include "run/run.h"
#include "util/error.h"
#include "util/files.h"

namespace attnlab {

struct ReportCommandOptions {
  std::string run;                     // a run folder
  std::string out;                     // the HTML file (empty: RUN/report.html)
  std::string text;                    // the sentence whose attention is shown (empty: the first sample)
  int64_t samples = 8;                 // sample translations from the test (else validation) split
  std::string checkpoint = "best";     // best | latest | average | a checkpoint file
};

namespace {

// The first `count` lines of the run's test text (else its validation text), each cut after its first two words:
// the prompt, and the rest the text goes on with.
std::vector<SampleTranslation> text_samples(const RunConfig& config, int64_t count, std::string& from) {
  std::vector<SampleTranslation> samples;
  for (const std::string& path : {config.data.test_text, config.data.valid_text}) {
    if (path.empty() || !path_exists(path)) continue;
    std::istringstream lines(read_text_file(path));
    for (std::string line; static_cast<int64_t>(samples.size()) < count && std::getline(lines, line);) {
      std::istringstream words(line);
      std::string first, second, rest;
      if (!(words >> first >> second)) continue;               // a line of fewer than three words has no rest
      std::getline(words >> std::ws, rest);
      if (!rest.empty()) samples.push_back({first + " " + second, rest, ""});
    }
    from = "The first " + std::to_string(samples.size()) + " lines of " + path + " with three words or more: their "
           "first two words as the prompt, continued greedily; red: differs from how the text goes on.";
    return samples;
  }
  from = "The run has no validation or test text to take prompts from.";
  return samples;
}

// A decoder-only language model's report (gpt/language_model.h): its curves, greedy continuations of the test
// text's first words, and the attention over one text (--text, or the first sample's prompt and continuation).
ReportInputs language_model_report(const ReportCommandOptions& options) {
  LoadedLanguageModel run = load_language_model(options.run, options.checkpoint);
  ReportInputs inputs;
  inputs.language_model = true;
  const ModelConfig& m = run.config.model;
  inputs.config_summary = "a decoder-only language model: d_model " + std::to_string(m.d_model) + ", " +
                          std::to_string(m.heads) + " heads, " + std::to_string(m.decoder_layers) +
                          " layers of masked self-attention (" + name_of(m.decoder_attention.kind) + "), d_ff " +
                          std::to_string(m.d_ff) + ", " + name_of(m.norm) + "-norm. Continuations and attention from " +
                          run.checkpoint_path + " (step " + std::to_string(run.step) + ").";
  inputs.samples = text_samples(run.config, options.samples, inputs.samples_from);
  for (SampleTranslation& sample : inputs.samples) {
    const auto words = static_cast<int64_t>(std::count(sample.reference.begin(), sample.reference.end(), ' ')) + 1;
    sample.output = generate_text(run, sample.source, words + 2, SamplingConfig{0.0, 0, 1.0}, 1);
  }
  const std::string prompt = !options.text.empty()      ? options.text
                             : !inputs.samples.empty() ? inputs.samples.front().source
                                                       : std::string();
  if (!prompt.empty()) inputs.attention = record_text_attention(run, prompt, GenerationAsk{options.text.empty() ? 12 : 0});
  return inputs;
}

}  // namespace

int report_command(const ReportCommandOptions& options) {
  if (options.samples < 0) throw Error("--samples must be 0 or more, not " + std::to_string(options.samples));
  if (is_language_model_run(options.run)) {
    ReportInputs inputs = language_model_report(options);
    inputs.run_dir = options.run;
    inputs.history = read_metrics((std::filesystem::path(options.run) / "metrics.jsonl").string());
    const std::string out = options.out.empty() ? (std::filesystem::path(options.run) / "report.html").string()
                                                : options.out;
    write_file_atomically(out, report_html(inputs));
    std::printf("%s\n", out.c_str());
    return 0;
  }
  LoadedRun run = load_run(options.run, options.checkpoint);
  ReportInputs inputs;
  inputs.run_dir = options.run;
  inputs.history = read_metrics((std::filesystem::path(options.run) / "metrics.jsonl").string());
  const ModelConfig& m = run.config.model;
  inputs.config_summary = "d_model " + std::to_string(m.d_model) + ", " + std::to_string(m.heads) + " heads, " +
                          std::to_string(m.encoder_layers) + " encoder + " + std::to_string(m.decoder_layers) +
                          " decoder layers, d_ff " + std::to_string(m.d_ff) + ", " + name_of(m.norm) + "-norm; attention: " +
                          "encoder " + name_of(m.encoder_attention.kind) + ", decoder " +
                          name_of(m.decoder_attention.kind) + ", cross " + name_of(m.cross_attention.kind) + ". Translations and attention from " +
                          run.checkpoint_path + " (step " + std::to_string(run.step) + ").";

  // Samples: the first sentences of the test split, else of the validation split.
  ParallelText split;
  std::string split_name;
  try {
    for (const char* name : {"test", "valid"}) {
      split = load_split(run.config.data, name);
      split_name = name;
      if (!split.src.empty()) break;
    }
    inputs.samples_from = split.src.empty()
                              ? "The run has no validation or test split to take samples from."
                              : "The first " + std::to_string(std::min<int64_t>(options.samples, split.src.size())) +
                                    " sentences of the " + split_name + " split (" + split.description +
                                    "), translated greedily; red: differs from the reference.";
  } catch (const Error& e) {
    inputs.samples_from = std::string("No samples: ") + e.what();
    split = ParallelText{};
  }
  for (size_t i = 0; i < split.src.size() && static_cast<int64_t>(i) < options.samples; ++i) {
    const std::vector<int32_t> ids = encode_text(run, *run.tokenizers.src, split.src[i], "sample source");
    inputs.samples.push_back({split.src[i], split.tgt[i],
                              run.tokenizers.tgt->decode(translate_for_pictures(*run.model, ids, run.config.decode))});
  }
  const std::string sentence = !options.text.empty() ? options.text
                               : !split.src.empty()   ? split.src.front()
                                                      : std::string();
  if (!sentence.empty()) inputs.attention = record_attention(run, sentence);

  const std::string out = options.out.empty() ? (std::filesystem::path(options.run) / "report.html").string()
                                              : options.out;
  write_file_atomically(out, report_html(inputs));
  std::printf("%s\n", out.c_str());
  return 0;
}

// `attnlab report`: its options and their help texts, read into ReportCommandOptions; main.cpp runs it.
Subcommand add_report_command(CLI::App& app) {
  auto options = std::make_shared<ReportCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "report",
      "Write one self-contained HTML page about a run: loss, learning-rate and validation curves (BLEU when the "
      "metrics have it) from metrics.jsonl, sample translations of the test split (else the validation split; "
      "their paths as the run's config.yaml has them, from the current folder), and the attention maps of one "
      "sentence. For a language model's run (model.task: language_model): greedy continuations of the first two "
      "words of the test text's lines (else the validation text's) and the attention over one text (--text as the "
      "prompt, drawn as given; by default the first sample's prompt and 12 tokens of its continuation). Prints the "
      "page's path.");
  subcommand->add_option("--run", options->run, "The run folder")->required();
  subcommand->add_option("--out", options->out, "The HTML file to write (default RUN/report.html)");
  subcommand->add_option("--text", options->text, "The sentence whose attention is drawn (default: the first sample)");
  subcommand->add_option("--samples", options->samples, "How many sample translations (default 8)");
  subcommand->add_option("--checkpoint", options->checkpoint,
                         "best (default), latest, average (attnlab average), or the path of a checkpoint file");
  return {subcommand, [options] { return report_command(*options); }};
}

}  // namespace attnlab
