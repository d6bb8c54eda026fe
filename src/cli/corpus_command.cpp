// corpus_command.cpp — `attnlab corpus --task NAME --out DIR [--seed N] [--size N]`: write a generated corpus.
//
// The corpora themselves are made in the library (src/data/synthetic/synthetic.h for copy / reverse / sort,
// src/data/synthetic/toy_en_fr.h for the English→French grammar); this front end generates one, writes its files
// (six, and six more with the gold alignments and phenomena for every task but cloze) and prints one line per file
// with its line count. Same task, seed and size → the same bytes on every machine.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "data/synthetic/synthetic.h"

namespace attnlab {

struct CorpusCommandOptions {
  std::string task;               // copy | reverse | sort | toy-en-fr | cloze
  std::string out;                // directory for train / valid / test files (created if missing)
  uint64_t seed = 1;
  std::optional<int64_t> size;    // training pairs; empty: the task's default
};

int corpus_command(const CorpusCommandOptions& options) {
  Corpus corpus = generate_corpus(options.task, options.seed, options.size);   // throws on a bad task or size
  std::vector<WrittenFile> written = write_corpus(corpus, options.out);
  std::printf("%s, seed %llu: %zu train, %zu valid, %zu test pairs\n", corpus.task.c_str(),
              static_cast<unsigned long long>(options.seed), corpus.train.size(), corpus.valid.size(),
              corpus.test.size());
  for (const WrittenFile& file : written) std::printf("  %-40s %7zu lines\n", file.path.c_str(), file.lines);
  return 0;
}

// `attnlab corpus`: its options and their help texts, read into CorpusCommandOptions; main.cpp runs it.
Subcommand add_corpus_command(CLI::App& app) {
  auto options = std::make_shared<CorpusCommandOptions>();
  auto size = std::make_shared<int64_t>(0);   // --size as given; options->size stays empty without it
  CLI::App* subcommand = app.add_subcommand(
      "corpus",
      "Write a generated parallel corpus: DIR/train, valid and test files, one sentence per line, aligned line "
      "by line, no end-of-sequence token (the model adds it). Deterministic: the same task, seed and size give "
      "the same bytes on every machine. Tasks (files; default train / valid / test pairs):\n"
      "  copy       target = source symbols             (.src/.tgt; 10000 / 500 / 500)\n"
      "  reverse    target = source symbols reversed    (.src/.tgt; 10000 / 500 / 500)\n"
      "  sort       target = source symbols sorted      (.src/.tgt; 10000 / 500 / 500)\n"
      "  toy-en-fr  English -> French from a small grammar (.en/.fr; 20000 / 1000 / 1000)\n"
      "  cloze      document @query query-with-@placeholder -> answer word (.question/.answer; 2000 / 250 / 250)\n"
      "Symbols are a..t, 3 to 15 per sentence. valid and test are drawn first and never change with --size; "
      "no pair appears in two splits.\n"
      "Every task but cloze also writes DIR/train.align, valid.align, test.align — the gold word alignment of each "
      "pair, one line per pair in Pharaoh format (i-j: source word i made target word j; i?j: a possible link; "
      "0-based) — and train.tags, valid.tags, test.tags: the phenomena of each pair as name@target words "
      "(toy-en-fr: adjective_after_noun, negation, elision, contraction, …; copy/reverse/sort: repeated_symbol). "
      "data/toy-en-fr/README.md explains the links; data/README.md lists the shipped corpora.");
  subcommand->add_option("--task", options->task, "copy, reverse, sort, toy-en-fr or cloze")->required();
  subcommand->add_option("--out", options->out, "Directory to write into (created if missing)")->required();
  subcommand
      ->add_option("--seed", options->seed, "Random seed, 0 or more (default 1, the seed of the shipped corpora)")
      ->check(CLI::Validator(
          [](std::string& text) {
            // CLI11 would otherwise wrap -1 around to 18446744073709551615.
            return text.find('-') == std::string::npos ? std::string() : "the seed must be 0 or more, not " + text;
          },
          "", "non-negative"));
  CLI::Option* size_option = subcommand->add_option(
      "--size", *size,
      "Training pairs, 1 to 1000000 (default: 10000 for the symbol tasks, 20000 for toy-en-fr, 2000 for cloze)");
  return {subcommand, [options, size, size_option] {
            if (size_option->count() > 0) options->size = *size;
            return corpus_command(*options);
          }};
}

}  // namespace attnlab
