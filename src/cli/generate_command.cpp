// generate_command.cpp — `attnlab generate --run DIR --prompt TEXT`: a language model (model.task: language_model)
// continues a prompt.
//
// The prompt is cleaned like the training text, encoded after bos and fed through the model once, filling its KV
// cache; then one token after another is chosen (src/gpt/sampling.h: greedy at --temperature 0, else a draw
// from softmax(z / τ) kept to --top-k and --top-p, from a generator seeded --seed) until eos ends the document or
// --max-tokens are written. Standard output gets the prompt and its continuation on one line (--continuation-only:
// the continuation alone). --distribution N shows instead what the first draw is made from: the N likeliest next
// tokens with their probabilities under those settings, a bar each (docs/course/15-gpt.md pictures temperature and
// top-k with it). Errors: a run that is not a language model, a prompt none of whose tokens the model knows, a
// temperature below 0, a top-k below 0, a top-p outside (0, 1] — each one line naming it.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "gpt/language_model.h"
#include "util/choice.h"

namespace attnlab {

struct GenerateCommandOptions {
  std::string run;          // a run folder (model.task: language_model)
  std::string prompt;       // the text to continue; empty: a new document
  int64_t max_tokens = 50;  // new tokens at most
  SamplingConfig sampling;  // temperature, top-k, top-p (src/gpt/sampling.h)
  uint64_t seed = 1;
  std::string checkpoint = "best";  // best | latest | a checkpoint file
  std::string path;                 // paper | fused (empty: the run's model.path)
  bool continuation_only = false;
  int64_t distribution = 0;         // > 0: print the next token's distribution (its most likely N) instead
};

// "after 'the old' (temperature 0.5, top-k 0, top-p 1), 9 tokens may come next:", then one line per token, likeliest
// first: its piece, p, and a bar of p · 50 blocks.
void print_distribution(const LoadedLanguageModel& run, const GenerateCommandOptions& options) {
  const std::vector<TokenProbability> kept =
      prompt_next_token_distribution(*run.model, prompt_ids(run, options.prompt), options.sampling);
  std::printf("after '%s' (temperature %g, top-k %lld, top-p %g), %zu token(s) may come next:\n",
              options.prompt.c_str(), options.sampling.temperature, static_cast<long long>(options.sampling.top_k),
              options.sampling.top_p, kept.size());
  for (size_t i = 0; i < kept.size() && static_cast<int64_t>(i) < options.distribution; ++i) {
    const std::string piece = run.tokenizer->pieces({kept[i].token}).at(0);
    std::string bar;
    for (int b = 0; b < static_cast<int>(kept[i].p * 50 + 0.5); ++b) bar += "█";
    std::printf("  %-10s %.3f%s%s\n", piece.c_str(), kept[i].p, bar.empty() ? "" : " ", bar.c_str());
  }
  if (static_cast<int64_t>(kept.size()) > options.distribution) {
    double rest = 0;
    for (size_t i = static_cast<size_t>(options.distribution); i < kept.size(); ++i) rest += kept[i].p;
    const std::string more = "(" + std::to_string(kept.size() - static_cast<size_t>(options.distribution)) + " more)";
    std::printf("  %-10s %.3f\n", more.c_str(), rest);
  }
}

int generate_command(const GenerateCommandOptions& options) {
  check_sampling(options.sampling);  // before loading anything
  LoadedLanguageModel run = load_language_model(options.run, options.checkpoint);
  if (!options.path.empty()) run.model->use_compute_path(choice_named<ComputePath>(options.path).value());
  if (options.distribution > 0) {
    print_distribution(run, options);
    return 0;
  }
  const std::string continuation =
      generate_text(run, options.prompt, options.max_tokens, options.sampling, options.seed);
  if (options.continuation_only || options.prompt.empty())
    std::printf("%s\n", continuation.c_str());
  else
    std::printf("%s %s\n", options.prompt.c_str(), continuation.c_str());
  return 0;
}

// `attnlab generate`: its options and their help texts, read into GenerateCommandOptions; main.cpp runs it.
Subcommand add_generate_command(CLI::App& app) {
  auto options = std::make_shared<GenerateCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "generate",
      "Continue a prompt with a language model (a run of model.task: language_model, a decoder-only Transformer: "
      "src/gpt/decoder_only.h). The prompt follows bos, as a document starts; tokens are chosen one at a time on "
      "the KV cache until the model ends the document (eos) or --max-tokens are written. --temperature 0 is greedy "
      "(the likeliest token); above 0 each token is drawn from softmax(logits / temperature), kept to the --top-k "
      "likeliest and to the smallest set whose probability reaches --top-p; the same --seed gives the same text. "
      "Prints the prompt and its continuation on one line.");
  subcommand->add_option("--run", options->run, "The run folder of a language model")->required();
  subcommand->add_option("--prompt", options->prompt,
                         "The text to continue (default: none, a new document); cleaned like the training text");
  subcommand->add_option("--max-tokens", options->max_tokens, "New tokens at most, 1 to 10000 (default 50)")
      ->check(CLI::Range(int64_t{1}, int64_t{10000}));
  subcommand->add_option("--temperature", options->sampling.temperature,
                         "τ ≥ 0: 0 is greedy, 1 (default) the model's own distribution, above 1 flatter");
  subcommand->add_option("--top-k", options->sampling.top_k, "Draw among the k likeliest tokens only (default 0: all)");
  subcommand->add_option("--top-p", options->sampling.top_p,
                         "Draw among the likeliest tokens whose probabilities reach p, in (0, 1] (default 1: all)");
  subcommand->add_option("--seed", options->seed, "The draws' random seed, 0 or more (default 1)")
      ->check(CLI::NonNegativeNumber);
  subcommand->add_option("--checkpoint", options->checkpoint,
                         "best (default), latest, or the path of a checkpoint file");
  subcommand
      ->add_option("--path", options->path,
                   "paper (the chain of plain ops) or fused (the kernels): overrides "
                   "model.path (default: the run's)")
      ->check(CLI::IsMember({"paper", "fused"}));
  CLI::Option* continuation_only =
      subcommand->add_flag("--continuation-only", options->continuation_only, "Print the continuation without the prompt");
  subcommand
      ->add_option("--distribution", options->distribution,
                   "Generate nothing: print the N likeliest next tokens after the prompt, 1 to 1000, with the "
                   "probabilities the first draw would give them under --temperature, --top-k and --top-p (and a "
                   "bar each), then the rest's total")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}))
      ->excludes(continuation_only);
  return {subcommand, [options] { return generate_command(*options); }};
}

}  // namespace attnlab
