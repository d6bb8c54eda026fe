// attention_command.cpp — `attnlab attention`: the attention maps of one sentence, as files and in the terminal.
//
// Translates --text (greedily, or by beam search with --beam N) or takes --target, runs one teacher-forced
// forward pass with a recorder (src/inspect/maps/attention_maps.h), and writes into --out: attention.json, one SVG per
// map and head, and index.html, the explorer (src/inspect/pages/explorer_page.h); with --compare RUN2 the same sentence
// through a second run as well (compared.json), which the page's compare view shows beside the first. With
// --terminal every head is also printed to standard output as a shaded heatmap. The JSON also carries where
// information flows (src/inspect/maps/flow.h): rollout, value norms, and — with --ig-steps m > 0, 16 by default —
// gradient × input and integrated gradients.
// The page draws the gold alignment on every cross-attention and flow picture, with each one's AER, when the
// sentence is a line of the run's test or valid split and the translation shown is its reference
// (src/inspect/align/gold_on_picture.h); otherwise it says why not. With --checkpoints all it also records the
// sentence at every step checkpoint of the run (src/inspect/maps/film.h): film.json, and the page's film view. --json
// prints attention.json to standard output (for scripts and tests); --checkpoint STEP takes the step checkpoint of
// that step.
// For a language model's run (model.task: language_model) --text is a prompt, continued by --max-tokens new tokens
// (greedy, or drawn: --temperature, --top-k, --top-p, --seed), and the maps are its one stack's masked
// self-attention over the whole text (src/gpt/language_model_maps.h); the translation-only options are
// refused, one line each.
// With --live it writes the live explorer instead (src/inspect/pages/live_page.h): --out DIR/index.html, the explorer
// with the browser build of attnlab inside it and --run's files bundled (or none), which translates typed
// sentences (a language model's run: continues typed prompts) and trains the copy task in the page, opened from disk.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cloze/cloze_training.h"
#include "gpt/language_model.h"
#include "gpt/language_model_maps.h"
#include "inspect/align/gold_on_picture.h"
#include "inspect/maps/attention_maps.h"
#include "inspect/maps/contrast.h"
#include "inspect/maps/film.h"
#include "inspect/pages/live_page.h"
#include "run/run.h"
#include "train/checkpoint.h"
#include "util/error.h"
#include "util/files.h"

namespace attnlab {

namespace {

// --live: the live explorer page, with --run's files (and --checkpoint's weights) when given.
int live_page_command(const AttentionCommandOptions& options) {
  if (options.out.empty()) throw Error("attnlab attention --live writes a page: give --out DIR");
  if (!path_exists(options.engine)) {
    throw Error("the browser build's engine " + options.engine +
                " is missing: build it with `cmake --preset wasm && "
                "cmake --build --preset wasm` (tools/web.sh does it all), or name it with --engine FILE");
  }
  std::optional<LiveRun> run;
  if (!options.run.empty()) {
    const RunConfig config = load_run_config(options.run);
    run = live_run_files(options.run, checkpoint_to_load(config, options.run, options.checkpoint));
  }
  const std::string page = live_page_html("attnlab live explorer" + (run ? " · " + run->name : std::string()),
                                          run ? &*run : nullptr, read_text_file(options.engine));
  std::filesystem::create_directories(options.out);
  write_file_atomically(options.out + "/index.html", page);
  std::printf("%s/index.html: the live explorer (%.1f MB)%s; open it in a browser, from disk\n", options.out.c_str(),
              static_cast<double>(page.size()) / 1e6, run ? (", with " + run->name).c_str() : ", no run bundled");
  return 0;
}

// --checkpoint STEP (digits only): the step checkpoint of that step, which must exist; any other word as load_run
// takes it (best, latest, average, a path).
std::string checkpoint_named(const std::string& run_dir, const std::string& which) {
  if (which.empty() || which.find_first_not_of("0123456789") != std::string::npos || which.size() > 12) return which;
  const CheckpointDirectory checkpoints(checkpoints_dir(run_dir), 1);
  const std::string path = checkpoints.step_path(std::stoll(which));
  if (path_exists(path)) return path;
  std::string steps;
  for (const std::string& file : checkpoints.step_files()) {
    const std::string name = std::filesystem::path(file).stem().string();   // step-00000040
    steps += (steps.empty() ? "" : ", ") + std::to_string(std::stoll(name.substr(name.find('-') + 1)));
  }
  throw Error(run_dir + " has no checkpoint of step " + which + " (" + path + "); its step checkpoints are " +
              (steps.empty() ? "none" : steps));
}

// One line about the gold: where it is and the best view's AER, or why the page draws none.
void print_gold(const PictureGold& gold, std::FILE* out) {
  if (!gold.found) {
    std::fprintf(out, "gold: none drawn: %s%s\n", gold.why.c_str(),
                 gold.reference.empty() ? "" : " (give it as --target to see the gold)");
    return;
  }
  const std::pair<std::string, AlignmentCounts>* best = nullptr;
  for (const auto& score : gold.scores) best = !best || score.second.aer() < best->second.aer() ? &score : best;
  std::fprintf(out, "gold: %s line %lld (%s); lowest AER %.3f (%s)\n", gold.split.c_str(),
               static_cast<long long>(gold.line), gold.alignment_file.c_str(), best ? best->second.aer() : 0.0,
               best ? best->first.c_str() : "no view");
}

void check_attention_options(const AttentionCommandOptions& options) {
  if (options.run.empty()) throw Error("attention: --run is required");
  if (options.text.empty()) throw Error("attention: --text is required");
  if (options.out.empty() && !options.terminal && !options.json) {
    throw Error("attnlab attention has nothing to write: give --out DIR (files), --terminal or --json (stdout)");
  }
  if (options.json && options.terminal) throw Error("attnlab attention: --json and --terminal both write to stdout; give one");
  if (!options.compare.empty() && options.out.empty()) {
    throw Error("attnlab attention --compare " + options.compare +
                " draws the page's compare view: give --out DIR too");
  }
  if (!options.checkpoints.empty() && options.out.empty()) {
    throw Error("attnlab attention --checkpoints all writes the page's film view and film.json: give --out DIR too");
  }
  if (!options.contrast.empty() && options.ig_steps < 1) {
    throw Error("attnlab attention --contrast attributes with integrated gradients: give --ig-steps 1 or more, not " +
                std::to_string(options.ig_steps));
  }
}

// A decoder-only language model's run (language_model_maps.h): --text is a prompt, continued as --max-tokens,
// --temperature, --top-k, --top-p and --seed say; the translation-only options are refused, one line each.
int text_attention_command(const AttentionCommandOptions& options) {
  const auto refuse = [&](bool given, const std::string& option, const std::string& why) {
    if (given) throw Error("attnlab attention " + option + " " + why + "; '" + options.run + "' is a language model");
  };
  refuse(!options.target.empty(), "--target", "forces a translation: give the whole text with --text");
  refuse(options.beam > 0, "--beam", "searches translations: a language model's text is continued by --max-tokens "
                                     "with --temperature, --top-k, --top-p and --seed");
  refuse(!options.compare.empty(), "--compare", "works on translation runs");
  refuse(!options.checkpoints.empty(), "--checkpoints", "films a translation over its checkpoints");
  refuse(!options.contrast.empty(), "--contrast", "attributes a translation's choice to its source words");
  LoadedLanguageModel run = load_language_model(options.run, checkpoint_named(options.run, options.checkpoint));
  const GenerationAsk ask{options.max_tokens, {options.temperature, options.top_k, options.top_p}, options.seed};
  AttentionPicture picture = record_text_attention(run, options.text, ask);
  std::vector<std::string> written;
  if (!options.out.empty()) written = write_attention_folder(picture, options.out);
  if (options.json) std::printf("%s", attention_json(picture).c_str());
  if (options.terminal) {
    const std::string& continuation = picture.generation->continuation;
    std::printf("prompt: %s\ncontinuation: %s\n\n", options.text.c_str(),
                options.max_tokens == 0 ? "(none asked for: --max-tokens 0)"
                : continuation.empty()  ? "(none: the model ended the text at once)"
                                        : continuation.c_str());
    for (const auto& map : picture.maps) {
      for (int64_t head = 0; head < map.heads; ++head) std::printf("%s\n", terminal_heatmap(picture, map, head).c_str());
    }
  }
  if (!written.empty()) {
    std::fprintf(options.json ? stderr : stdout, "%zu files in %s; open %s\n", written.size(), options.out.c_str(),
                 written.back().c_str());
  }
  return 0;
}

}  // namespace

int attention_command(const AttentionCommandOptions& options) {
  if (options.live) return live_page_command(options);
  check_attention_options(options);
  if (is_cloze_run(options.run)) {  // α, β, β̄, s of a reader
    if (!options.compare.empty())
      throw Error("attnlab attention --compare works on translation runs, not on a cloze run");
    if (options.json || !options.checkpoints.empty() || !options.contrast.empty()) {
      throw Error("attnlab attention --json, --checkpoints and --contrast work on translation runs, not on a cloze run");
    }
    return cloze_attention_command(options);
  }
  if (is_language_model_run(options.run)) return text_attention_command(options);
  LoadedRun run = load_run(options.run, checkpoint_named(options.run, options.checkpoint));
  SentenceTrace trace;   // kept for --contrast (contrast.h reads the pass's embeddings and ALTI+ its terms)
  AttentionPicture picture = record_attention(run, options.text, options.target, options.beam, options.ig_steps,
                                              options.contrast.empty() ? nullptr : &trace);
  if (!options.contrast.empty()) {
    const auto questions = contrast_questions(options.contrast, *run.tokenizers.tgt, picture, trace);
    picture.contrasts = contrasts_of(run, picture, trace, questions, options.ig_steps);
  }
  picture.gold = find_gold(run, picture);
  std::string film;
  if (!options.checkpoints.empty()) {  // every frame forced on the translation shown
    film = film_json(record_film(options.run, options.run, options.text, picture.target_text, options.ig_steps));
  }
  std::vector<std::string> written;
  if (!options.compare.empty()) {  // the same sentence (and --target, --beam) through run 2
    LoadedRun other = load_run(options.compare, checkpoint_named(options.compare, options.checkpoint));
    const AttentionPicture compared =
        record_attention(other, options.text, options.target, options.beam, options.ig_steps);
    written = write_attention_folder(picture, options.out, &compared, {options.run, options.compare}, film);
  } else if (!options.out.empty()) {
    written = write_attention_folder(picture, options.out, nullptr, {}, film);
  }
  if (options.json) std::printf("%s", attention_json(picture).c_str());
  if (options.terminal) {
    std::printf("source: %s\ntarget: %s%s\n\n", picture.source_text.c_str(), picture.target_text.c_str(),
                picture.target_forced ? " (given)" : " (greedy translation)");
    for (const auto& map : picture.maps) {
      for (int64_t head = 0; head < map.heads; ++head) {
        std::printf("%s\n", terminal_heatmap(picture, map, head).c_str());
      }
    }
  }
  std::FILE* notes = options.json ? stderr : stdout;   // with --json, stdout holds the JSON alone
  for (const Contrast& contrast : picture.contrasts) std::fprintf(notes, "contrast: %s\n", contrast_summary(contrast).c_str());
  if (!written.empty()) {
    print_gold(picture.gold, notes);
    std::fprintf(notes, "%zu files in %s; open %s\n", written.size(), options.out.c_str(), written.back().c_str());
  }
  return 0;
}

// `attnlab attention`: its options and their help texts, read into AttentionCommandOptions; main.cpp runs it.
Subcommand add_attention_command(CLI::App& app) {
  auto options = std::make_shared<AttentionCommandOptions>();
  CLI::App* subcommand = app.add_subcommand(
      "attention",
      "Draw what every attention head looks at for one sentence: translates --text greedily (or by beam search, "
      "--beam N; or takes --target), runs one teacher-forced pass recording every map and the numbers behind it, "
      "and writes into --out attention.json (tokens, weights, the stages of each weight, the decoding steps; "
      "schema in docs/guide/explorer-and-serve.md), one SVG heatmap per layer and head, and index.html, the explorer "
      "(head, model, matrix, neuron and decoding views, and with --compare a second run beside it; works opened "
      "from disk). --terminal prints every head as a shaded heatmap instead of, or as well as, the files. For a "
      "cloze run (model.task: cloze) --text is a question, \"<document> @query <query with @placeholder>\", and the "
      "files are alpha.svg, beta.svg, beta_mean.svg, s.svg, cloze.json and index.html, the explorer's cloze view "
      "(attention over attention's α, β, β̄ and s; s alone for as_reader). When --text is a line of the run's test or "
      "valid split and the translation shown is its reference, every cross-attention and flow picture outlines the "
      "corpus's gold alignment (FILE.align beside the target file) with its AER (docs/guide/alignment.md). For a "
      "language model's run (model.task: language_model) --text is a prompt, continued by --max-tokens new tokens "
      "(greedy, or drawn with --temperature, --top-k, --top-p, --seed), and the maps are its one stack's masked "
      "self-attention over the whole text (docs/guide/language-model.md); --target, --beam, --compare, "
      "--checkpoints and --contrast are for translations.");
  subcommand->add_option("--run", options->run, "The run folder (required, but for --live)");
  subcommand->add_option("--text", options->text, "The source sentence (required, but for --live)");
  subcommand->add_option("--target", options->target,
                         "Force this target sentence instead of the model's own greedy translation");
  subcommand->add_option("--out", options->out,
                         "Folder to write the files into (created if missing); give --out, --terminal or both");
  subcommand->add_flag("--terminal", options->terminal, "Print every head as a Unicode-shaded heatmap");
  subcommand->add_option("--checkpoint", options->checkpoint,
                         "best (default), latest, average (attnlab average), a step number (the step checkpoint "
                         "RUN/checkpoints/step-<N>.safetensors), or the path of a checkpoint file");
  subcommand->add_option("--checkpoints", options->checkpoints,
                         "all: also record the sentence at every step checkpoint of the run, every one forced on "
                         "the translation shown, for the page's film view (a slider and a play button beside the "
                         "loss and AER curves) and film.json; needs --out")
      ->check(CLI::IsMember({"all"}));
  subcommand->add_flag("--json", options->json,
                       "Print attention.json to standard output (then the other messages go to standard error)");
  subcommand
      ->add_option("--beam", options->beam,
                   "Beam size of the translation (default: the run's decode.beam; 1 = greedy); the decoding "
                   "view then shows every hypothesis kept, finished and dropped")
      ->check(CLI::Range(int64_t{1}, int64_t{64}));
  subcommand->add_option("--compare", options->compare,
                         "A second run folder: the same sentence (and --target, --beam, --checkpoint) through it "
                         "too, written as compared.json and shown beside the first run in the page's compare view");
  subcommand
      ->add_option("--ig-steps", options->ig_steps,
                   "Integrated gradients' steps m for the attribution views (default 16; 0: no gradient "
                   "attribution): T forward and backward passes of m + 2 copies of the sentence")
      ->check(CLI::Range(int64_t{0}, int64_t{256}));
  subcommand->add_option("--contrast", options->contrast,
                         "POS:TOKEN: why the translation has its token at decoder position POS (from 0; the decoding "
                         "view's step POS + 1) and not TOKEN: log p(chosen) − log p(TOKEN) attributed to the source "
                         "words by integrated gradients (--ig-steps m) with its completeness error, and ALTI+'s "
                         "source / target-prefix split (docs/guide/explorer-and-serve.md); repeatable. \"all\": each "
                         "of the five likeliest tokens of every step but the chosen one, up to 5 T passes of m + 2 sentences")
      ->allow_extra_args(false);
  subcommand
      ->add_option("--max-tokens", options->max_tokens,
                   "A language model's run: continue --text (the prompt) by up to N new tokens before drawing, "
                   "0 to 1000 (default 0: the prompt alone)")
      ->check(CLI::Range(int64_t{0}, picture_tokens_most));
  subcommand->add_option("--temperature", options->temperature,
                         "A language model's run: the continuation's temperature, 0 or more (default 0: greedy)");
  subcommand->add_option("--top-k", options->top_k,
                         "A language model's run: draw among the k likeliest tokens only (default 0: all)");
  subcommand->add_option("--top-p", options->top_p,
                         "A language model's run: nucleus sampling's p, above 0 and at most 1 (default 1: all)");
  subcommand->add_option("--seed", options->seed, "A language model's run: the draws' random seed (default 1)");
  subcommand->add_flag("--live", options->live,
                       "Write the live explorer into --out instead: the explorer with attnlab inside it (the browser "
                       "build), --run's files bundled (optional), translating and training in the page with no "
                       "server; a language model's run continues prompts there with the sampling fields "
                       "(docs/guide/explorer-and-serve.md)");
  subcommand->add_option("--engine", options->engine,
                         "The browser build's engine for --live (default build/wasm/web/attnlab_web.js: "
                         "cmake --preset wasm && cmake --build --preset wasm)");
  return {subcommand, [options] { return attention_command(*options); }};
}

}  // namespace attnlab
