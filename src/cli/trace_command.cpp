// trace_command.cpp — `attnlab trace`: one sentence through a trained model, every stage printed in the order
// the code computes it (src/inspect/maps/trace.h), to read next to src/model/transformer.cpp and src/attention/.
//
// With --target the decoder is fed that target (teacher forcing, as in training); without it the sentence is
// first translated greedily and the trace shows the pass over the model's own translation. A language model's run
// (model.task: language_model) is traced over bos + --text: its one stack, and the next token at every position.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "data/corpus.h"
#include "decode/greedy.h"
#include "decode/translate.h"
#include "gpt/language_model.h"
#include "gpt/trace_text.h"
#include "inspect/maps/trace.h"
#include "run/run.h"
#include "util/error.h"
#include "util/utf8.h"

namespace attnlab {

struct TraceCommandOptions {
  std::string run;                     // a run folder
  std::string text;                    // the source sentence
  std::optional<std::string> target;   // teacher-forced target; empty optional: the greedy translation
  int64_t values = 4;                  // numbers shown per line (the first of the first row)
  std::string checkpoint = "best";     // best | latest | average | a checkpoint file
};

namespace {

// The text as the tokenizer saw it in training (src/data/corpus.cpp): valid UTF-8, Unicode spaces made
// plain, lower-cased when the run lower-cases.
std::vector<int32_t> encode_text(const LoadedRun& run, const Tokenizer& tokenizer, const std::string& text,
                                 const char* option) {
  if (size_t bad = first_invalid_utf8(text); bad != std::string_view::npos) {
    throw Error(std::string(option) + " is not valid UTF-8 (byte " + std::to_string(bad + 1) +
                "); attnlab reads UTF-8 text");
  }
  return tokenizer.encode(clean_like_training(run.config, text));
}

// The translation that is traced when --target is not given: decoded the way the run's config asks (greedy or
// beam search, src/decode/translate.h).
std::vector<int32_t> translate_for_trace(const LoadedRun& run, const std::vector<int32_t>& source) {
  return translate_ids(*run.model, pad_batch({source}), run.config.decode)[0];
}

// A decoder-only language model (gpt/language_model.h): one pass over bos + the text, no source and no target.
int trace_language_model(const TraceCommandOptions& options) {
  if (options.target) throw Error("--target is for a translation run; '" + options.run + "' is a language model: "
                                  "give the text to trace with --text alone");
  LoadedLanguageModel run = load_language_model(options.run, options.checkpoint);
  const SentenceTrace trace = trace_text(*run.model, prompt_ids(run, options.text));
  std::printf("# attnlab trace: %s, checkpoint %s (step %lld), a decoder-only language model\n", options.run.c_str(),
              run.checkpoint_path.c_str(), static_cast<long long>(run.step));
  std::printf("# text: %s   (after bos; next[t] is the model's guess for the token after position t)\n",
              run.tokenizer->decode(trace.decoder_input).c_str());
  std::printf("# each line: name, shape, the first %lld numbers of its first row\n",
              static_cast<long long>(options.values));
  if (trace.switched_to_paper_path) std::printf("# computed on the paper's path (model.path: paper)\n");
  for (const std::string& line : format_trace(trace, *run.tokenizer, *run.tokenizer, options.values)) {
    std::printf("%s\n", line.c_str());
  }
  return 0;
}

}  // namespace

int trace_command(const TraceCommandOptions& options) {
  if (options.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw Error("--text is empty: give the source sentence to trace, e.g. --text \"the cat eats .\"");
  }
  if (options.values < 0) throw Error("--values must be 0 or more, got " + std::to_string(options.values));
  if (is_language_model_run(options.run)) return trace_language_model(options);
  LoadedRun run = load_run(options.run, options.checkpoint);
  const Tokenizer& source_tokenizer = *run.tokenizers.src;
  const Tokenizer& target_tokenizer = *run.tokenizers.tgt;

  std::vector<int32_t> source = encode_text(run, source_tokenizer, options.text, "--text");
  if (source.empty()) throw Error("--text \"" + options.text + "\" has no tokens for this run's tokenizer");
  const bool forced = options.target.has_value();
  std::vector<int32_t> target = forced ? encode_text(run, target_tokenizer, *options.target, "--target")
                                       : translate_for_trace(run, source);

  SentenceTrace trace = trace_sentence(*run.model, source, target);
  std::printf("# attnlab trace: %s, checkpoint %s (step %lld)\n", options.run.c_str(), run.checkpoint_path.c_str(),
              static_cast<long long>(run.step));
  std::printf("# source: %s\n", source_tokenizer.decode(source).c_str());
  std::printf("# target: %s   (%s)\n", target_tokenizer.decode(target).c_str(),
              forced ? "--target, teacher-forced" : "the model's greedy translation, teacher-forced");
  std::printf("# each line: name, shape, the first %lld numbers of its first row\n",
              static_cast<long long>(options.values));
  if (trace.switched_to_paper_path) {
    std::printf("# computed on the paper's path (model.path: paper), which has every stage below; the run's own "
                "path, fused, computes the same numbers in fewer ops\n");
  }
  for (const std::string& line : format_trace(trace, source_tokenizer, target_tokenizer, options.values)) {
    std::printf("%s\n", line.c_str());
  }
  return 0;
}

// `attnlab trace`: its options and their help texts, read into TraceCommandOptions; main.cpp runs it.
Subcommand add_trace_command(CLI::App& app) {
  auto options = std::make_shared<TraceCommandOptions>();
  auto target = std::make_shared<std::string>();   // --target as given; options->target stays empty without it
  CLI::App* subcommand = app.add_subcommand(
      "trace",
      "Print one forward pass in reading order: token ids, embeddings, then per layer Q, K, V, scores (masked), "
      "weights, context, output projection, residual, layer norm and FFN, for encoder and decoder, the logits and "
      "the top-5 next tokens at each target position. Each line: name (as the module and parameter names), shape, "
      "the first numbers of its first row. Without --target the sentence is translated greedily first and the "
      "decoder is fed that translation. A language model's run (model.task: language_model) is traced over bos + "
      "--text: its one stack and the next token at every position.");
  subcommand->add_option("--run", options->run, "The run folder")->required();
  subcommand->add_option("--text", options->text, "The source sentence")->required();
  CLI::Option* target_option =
      subcommand->add_option("--target", *target, "Feed the decoder this target (teacher forcing)");
  subcommand->add_option("--values", options->values, "Numbers shown per line, from the first row (default 4)");
  subcommand->add_option("--checkpoint", options->checkpoint,
                         "best (default), latest, average (attnlab average), or the path of a checkpoint file");
  return {subcommand, [options, target, target_option] {
            if (target_option->count() > 0) options->target = *target;
            return trace_command(*options);
          }};
}

}  // namespace attnlab
