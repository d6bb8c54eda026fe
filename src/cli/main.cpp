// main.cpp — the `attnlab` command: parses the command line and hands each subcommand to its function.
//
// Library code logs through spdlog; only this front end writes results to stdout. Any attnlab::Error (bad
// input: a missing file, a malformed checkpoint, a shape that does not fit) ends the program with its one-line
// message on stderr and exit code 1; a command-line mistake exits with CLI11's message and code.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include "cli/commands.h"
#include "tensor/error.h"

int main(int argc, char** argv) {
  CLI::App app{"attnlab — a Transformer encoder–decoder trainer on a from-scratch autograd engine, "
               "made to be learned from."};
  app.require_subcommand(1);
  app.fallthrough();  // global options (--log-level) work after the subcommand too, inherited by every subcommand
  app.set_version_flag("--version", "attnlab 0.1.0");

  attnlab::GradcheckCommandOptions gradcheck;
  CLI::App* gradcheck_app = app.add_subcommand(
      "gradcheck",
      "Check every op's hand-written backward against central finite differences, in float64. Prints a table "
      "(op, case, input shapes, max absolute and relative error, PASS/FAIL); exits 1 if any check fails.");
  gradcheck_app->add_option("--op", gradcheck.op,
                            "Check only this op, and print its analytic and numeric gradients side by side");

  attnlab::CorpusCommandOptions corpus;
  int64_t corpus_size = 0;
  CLI::App* corpus_app = app.add_subcommand(
      "corpus",
      "Write a generated parallel corpus: DIR/train, valid and test files, one sentence per line, aligned line "
      "by line, no end-of-sequence token (the model adds it). Deterministic: the same task, seed and size give "
      "the same bytes on every machine. Tasks (files; default train / valid / test pairs):\n"
      "  copy       target = source symbols             (.src/.tgt; 10000 / 500 / 500)\n"
      "  reverse    target = source symbols reversed    (.src/.tgt; 10000 / 500 / 500)\n"
      "  sort       target = source symbols sorted      (.src/.tgt; 10000 / 500 / 500)\n"
      "  toy-en-fr  English -> French from a small grammar (.en/.fr; 20000 / 1000 / 1000)\n"
      "Symbols are a..t, 3 to 15 per sentence. valid and test are drawn first and never change with --size; "
      "no pair appears in two splits. data/README.md lists the shipped corpora.");
  corpus_app->add_option("--task", corpus.task, "copy, reverse, sort or toy-en-fr")->required();
  corpus_app->add_option("--out", corpus.out, "Directory to write into (created if missing)")->required();
  corpus_app
      ->add_option("--seed", corpus.seed, "Random seed, 0 or more (default 1, the seed of the shipped corpora)")
      ->check(CLI::Validator(
          [](std::string& text) {
            // CLI11 would otherwise wrap -1 around to 18446744073709551615.
            return text.find('-') == std::string::npos ? std::string() : "the seed must be 0 or more, not " + text;
          },
          "", "non-negative"));
  CLI::Option* corpus_size_option = corpus_app->add_option(
      "--size", corpus_size,
      "Training pairs, 1 to 1000000 (default: 10000 for the symbol tasks, 20000 for toy-en-fr)");

  attnlab::TrainCommandOptions train;
  CLI::App* train_app = app.add_subcommand(
      "train",
      "Train a translation model: reads a YAML config (configs/README.md documents every key), writes a run folder "
      "(config, tokenizer, checkpoints, metrics.jsonl). Ctrl-C saves a checkpoint and stops; --resume continues.");
  train_app->add_option("--config", train.config, "The config file of a new run (e.g. configs/toy-en-fr.yaml)");
  train_app->add_option("--run", train.run, "The folder to write the new run into (e.g. runs/toy-en-fr)");
  train_app->add_option("--resume", train.resume, "Continue the run in this folder from its latest checkpoint");
  train_app->add_option("--set", train.overrides,
                        "Override a config key, e.g. --set train.max_steps=100 (repeatable)");

  attnlab::TranslateCommandOptions translate;
  CLI::App* translate_app = app.add_subcommand(
      "translate",
      "Translate with a trained run: --text \"...\", or one sentence per line from standard input; "
      "translations go to standard output, one per line.");
  translate_app->add_option("--run", translate.run, "The run folder")->required();
  translate_app->add_option("--text", translate.text, "One sentence to translate (otherwise read stdin)");
  translate_app->add_option("--checkpoint", translate.checkpoint,
                            "best (default), latest, or the path of a checkpoint file");

  attnlab::BenchCommandOptions bench;
  int64_t bench_threads = 0;
  CLI::App* bench_app = app.add_subcommand(
      "bench",
      "Time the training step of a config's model on a synthetic batch (B sentences × T random ids each side, "
      "fixed seed; the config's data section is not read): median step time, forward / backward / optimizer "
      "split, tokens/s, model GFLOP/s against a GEMM peak measured on the spot, greedy and beam decoding "
      "sentences/s, peak RSS. tools/bench.sh compares it with PyTorch; README.md \"Performance\" explains it. "
      "With --sweep-length instead: one encoder self-attention layer of each kind (d_model 64, batch 1) timed "
      "forward + backward (CPU time, one thread) at n = 32, 64, …, 2048, written as a Markdown table and an SVG log-log plot with a "
      "fitted growth exponent per kind.");
  bench_app->add_option("--config", bench.config,
                        "The config whose model to time (e.g. configs/bench/base.yaml); required unless --sweep-length");
  bench_app->add_option("--steps", bench.steps, "Timed training steps (default 10)");
  bench_app->add_option("--warmup", bench.warmup, "Untimed training steps before them (default 2)");
  CLI::Option* bench_threads_option =
      bench_app->add_option("--threads", bench_threads, "CPU threads (default: train.threads; 0 = all cores)");
  bench_app->add_option("--batch", bench.batch, "Sentences per batch (default 64)");
  bench_app->add_option("--length", bench.length, "Tokens per sentence on each side (default 32)");
  bench_app->add_option("--vocab", bench.vocab, "Vocabulary of the random ids (default: tokenizer.vocab_size)");
  bench_app->add_option("--decode-sentences", bench.decode_sentences,
                        "Sentences translated one at a time for the decoding figures, to at most 32 tokens each "
                        "(default 100; 0 skips decoding)");
  bench_app->add_flag("--json", bench.json, "Print one JSON object instead of the table");
  bench_app->add_option("--set", bench.overrides, "Override a config key, e.g. --set model.d_model=512 (repeatable)");
  bench_app->add_flag("--sweep-length", bench.sweep_length,
                      "Time one attention layer of every kind at growing n instead of a model (see above)");
  bench_app->add_option("--kinds", bench.kinds,
                        "With --sweep-length: the kinds to time (default all: scaled_dot additive simplified sagan "
                        "external linear window; window = scaled_dot with 16 keys each side)");
  bench_app->add_option("--max-length", bench.max_length, "With --sweep-length: the largest n (default 2048)");
  bench_app->add_option("--out", bench.out,
                        "With --sweep-length: the folder for length_sweep.md and length_sweep.svg (default docs)");

  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off (default info)")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

  CLI11_PARSE(app, argc, argv);
  if (corpus_size_option->count() > 0) corpus.size = corpus_size;
  if (bench_threads_option->count() > 0) bench.threads = bench_threads;
  // Logs go to stderr, so that stdout carries only results (translations, tables).
  spdlog::set_default_logger(spdlog::stderr_color_mt("attnlab"));
  spdlog::set_pattern("[%H:%M:%S] %v");
  spdlog::set_level(spdlog::level::from_str(log_level));

  try {
    if (*gradcheck_app) return attnlab::gradcheck_command(gradcheck);
    if (*corpus_app) return attnlab::corpus_command(corpus);
    if (*train_app) return attnlab::train_command(train);
    if (*translate_app) return attnlab::translate_command(translate);
    if (*bench_app) return attnlab::bench_command(bench);
  } catch (const attnlab::Error& e) {
    std::fprintf(stderr, "attnlab: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
