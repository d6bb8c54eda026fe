// main.cpp — the `attnlab` command: parses the command line and hands each subcommand to its function.
//
// Library code logs through spdlog; only this front end writes results to stdout. Any attnlab::Error (bad
// input: a missing file, a malformed checkpoint, a shape that does not fit) ends the program with its one-line
// message on stderr and exit code 1. So does a command-line mistake: CLI11's own message (a bad option value, a
// missing --run), or for an unknown subcommand the closest one, on one "attnlab: …" line, exit code 1.
#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include "cli/commands.h"
#include "util/error.h"
#include "util/quote.h"
#include "util/suggest.h"

namespace {

using attnlab::closest_match, attnlab::join, attnlab::quote, attnlab::shorten;

// The first word of the command line that is not an option (nor --log-level's value): the subcommand, if any.
std::string first_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--log-level") ++i;
    else if (!word.starts_with("-")) return word;
  }
  return "";
}

// A command line CLI11 refused, as one "attnlab: …" line and exit code 1 (--help and --version, which CLI11 also
// reports this way, print and exit 0 as usual).
int refuse_command_line(CLI::App& app, const CLI::ParseError& error, int argc, char** argv) {
  if (error.get_exit_code() == 0) return app.exit(error);
  std::vector<std::string> names;
  for (const CLI::App* subcommand : app.get_subcommands([](CLI::App*) { return true; })) {
    names.push_back(subcommand->get_name());
  }
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  const std::string word = first_word(argc, argv);
  const bool known = std::find(names.begin(), names.end(), word) != names.end();
  const std::string name = parsed.empty() ? "" : parsed.back()->get_name();
  std::string message;
  if (argc == 1) {
    message = "a subcommand is needed: " + join(names) + " (attnlab --help says what each does)";
  } else if (parsed.empty() && !word.empty() && !known) {
    message = "unknown subcommand " + quote(word, '\'') + "; did you mean '" + closest_match(word, names) +
              "'? (subcommands: " + join(names) + ")";
  } else {
    // CLI11 quotes the values it refuses in full: keep the message to a readable length.
    message = (name.empty() ? "" : name + ": ") + shorten(error.what(), 300) + " (attnlab " +
              (name.empty() ? "" : name + " ") + "--help lists the options)";
  }
  std::fprintf(stderr, "attnlab: %s\n", message.c_str());
  return 1;
}

}  // namespace

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
  CLI::Option* gradcheck_op = gradcheck_app->add_option(
      "--op", gradcheck.op, "Check only this op, and print its analytic and numeric gradients side by side");
  gradcheck_app
      ->add_flag("--explain", gradcheck.explain,
                 "With --op: first a guided tour of the op — its formula and derivative, a small input, the "
                 "output, and the analytic and numeric gradients with their difference — then its checks")
      ->needs(gradcheck_op);

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
      "  cloze      document @query query-with-@placeholder -> answer word (.question/.answer; 2000 / 250 / 250)\n"
      "Symbols are a..t, 3 to 15 per sentence. valid and test are drawn first and never change with --size; "
      "no pair appears in two splits. data/README.md lists the shipped corpora.");
  corpus_app->add_option("--task", corpus.task, "copy, reverse, sort, toy-en-fr or cloze")->required();
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
      "Training pairs, 1 to 1000000 (default: 10000 for the symbol tasks, 20000 for toy-en-fr, 2000 for cloze)");

  attnlab::TrainCommandOptions train;
  CLI::App* train_app = app.add_subcommand(
      "train",
      "Train a translation model: reads a YAML config (configs/README.md documents every key), writes a run folder "
      "(config, tokenizer, checkpoints, metrics.jsonl). Ctrl-C saves a checkpoint and stops; --resume continues. "
      "Under mpirun -np N (a build with MPI) N processes share every batch: README \"Data parallelism\".");
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
  translate_app->add_option("--path", translate.path,
                 "paper (the paper's chain of plain ops, for stepping through) or fused (the fast kernels); sets "
                 "model.path (default: the run's)")
      ->check(CLI::IsMember({"paper", "fused"}));
  translate_app->add_option("--checkpoint", translate.checkpoint,
                            "best (default), latest, or the path of a checkpoint file");
  translate_app->add_option("--beam", translate.beam,
                            "Beam size: 1 = greedy decoding (default: the run's decode.beam)")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  translate_app->add_option("--alpha", translate.alpha,
                            "GNMT length penalty α of beam search, lp = ((5 + |Y|) / 6)^α; 0 = none "
                            "(default: the run's decode.length_penalty)")
      ->check(CLI::Range(0.0, 100.0));

  attnlab::EvalCommandOptions eval;
  int64_t eval_beam = 1;
  CLI::App* eval_app = app.add_subcommand(
      "eval",
      "Evaluate a trained run: translate --split valid|test (from the run's config) or --src FILE with --ref FILE, "
      "write the translations one per line, and report BLEU, chrF, exact match, teacher-forced loss, perplexity, "
      "token accuracy and attention entropy (a table, or one JSON object with --json). A cloze run (model.task: "
      "cloze) reports instead, on --split valid|test, its accuracy, loss and the most-frequent-noun baseline.");
  eval_app->add_option("--run", eval.run, "The run folder")->required();
  eval_app->add_option("--split", eval.split, "Which split of the run's config to translate")
      ->check(CLI::IsMember({"valid", "test"}));
  eval_app->add_option("--src", eval.src, "Source sentences, one per line (instead of --split; needs --ref)");
  eval_app->add_option("--ref", eval.ref, "Reference translations, line-aligned with --src");
  CLI::Option* eval_beam_option =
      eval_app->add_option("--beam", eval_beam, "Beam size (1 = greedy; default: the run's decode.beam)")
          ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  eval_app->add_option("--path", eval.path,
                 "paper (the paper's chain of plain ops, for stepping through) or fused (the fast kernels); sets "
                 "model.path (default: the run's)")
      ->check(CLI::IsMember({"paper", "fused"}));
  eval_app->add_option("--checkpoint", eval.checkpoint, "best (default), latest, or the path of a checkpoint file");
  eval_app->add_flag("--json", eval.json, "Print one JSON object instead of a table");
  eval_app->add_option("--out", eval.out,
                       "Where to write the translations (default: RUN/eval-SPLIT.hyp, or RUN/eval-NAME.hyp for --src NAME)");
  attnlab::TraceCommandOptions trace;
  std::string trace_target;
  CLI::App* trace_app = app.add_subcommand(
      "trace",
      "Print one forward pass in reading order: token ids, embeddings, then per layer Q, K, V, scores (masked), "
      "weights, context, output projection, residual, layer norm and FFN, for encoder and decoder, the logits and "
      "the top-5 next tokens at each target position. Each line: name (as the module and parameter names), shape, "
      "the first numbers of its first row. Without --target the sentence is translated greedily first and the "
      "decoder is fed that translation.");
  trace_app->add_option("--run", trace.run, "The run folder")->required();
  trace_app->add_option("--text", trace.text, "The source sentence")->required();
  CLI::Option* trace_target_option =
      trace_app->add_option("--target", trace_target, "Feed the decoder this target (teacher forcing)");
  trace_app->add_option("--values", trace.values, "Numbers shown per line, from the first row (default 4)");
  trace_app->add_option("--checkpoint", trace.checkpoint, "best (default), latest, or the path of a checkpoint file");

  attnlab::AttentionCommandOptions attention;
  CLI::App* attention_app = app.add_subcommand(
      "attention",
      "Draw what every attention head looks at for one sentence: translates --text greedily (or by beam search, "
      "--beam N; or takes --target), runs one teacher-forced pass recording every map and the numbers behind it, "
      "and writes into --out attention.json (tokens, weights, the stages of each weight, the decoding steps; "
      "schema in README \"Looking inside\"), one SVG heatmap per layer and head, and index.html, the explorer "
      "(head, model, matrix, neuron and decoding views, and with --compare a second run beside it; works opened "
      "from disk). --terminal prints every head as a shaded heatmap instead of, or as well as, the files. For a "
      "cloze run (model.task: cloze) --text is a question, \"<document> @query <query with @placeholder>\", and the "
      "files are alpha.svg, beta.svg, beta_mean.svg, s.svg and index.html (attention over attention's α, β, β̄ "
      "and s; s alone for as_reader).");
  attention_app->add_option("--run", attention.run, "The run folder")->required();
  attention_app->add_option("--text", attention.text, "The source sentence")->required();
  attention_app->add_option("--target", attention.target,
                            "Force this target sentence instead of the model's own greedy translation");
  attention_app->add_option("--out", attention.out, "Folder to write the files into (created if missing); give --out, --terminal or both");
  attention_app->add_flag("--terminal", attention.terminal, "Print every head as a Unicode-shaded heatmap");
  attention_app->add_option("--checkpoint", attention.checkpoint,
                            "best (default), latest, or the path of a checkpoint file");
  attention_app->add_option("--beam", attention.beam,
                            "Beam size of the translation (default: the run's decode.beam; 1 = greedy); the decoding "
                            "view then shows every hypothesis kept, finished and dropped")
      ->check(CLI::Range(int64_t{1}, int64_t{64}));
  attention_app->add_option("--compare", attention.compare,
                            "A second run folder: the same sentence (and --target, --beam, --checkpoint) through it "
                            "too, written as compared.json and shown beside the first run in the page's compare view");

  attnlab::ServeCommandOptions serve;
  CLI::App* serve_app = app.add_subcommand(
      "serve",
      "Serve the explorer live: a page where you type a sentence, pick a run and a beam size, and see the "
      "translation with every view of `attnlab attention`. Listens on --host (127.0.0.1: this machine only, "
      "unless told otherwise) and --port; answers bad requests with a JSON error and status 400; Ctrl-C stops it.");
  serve_app->add_option("--run", serve.runs, "A run folder (repeat --run for several runs to choose among)")->required();
  serve_app->add_option("--port", serve.port, "The TCP port (default 8080)")->check(CLI::Range(1, 65535));
  serve_app->add_option("--host", serve.host, "The address to listen on (default 127.0.0.1)");
  serve_app->add_option("--checkpoint", serve.checkpoint, "best (default), latest, or the path of a checkpoint file");
  serve_app->add_option("--max-text-bytes", serve.max_text_bytes,
                        "The longest sentence accepted, in bytes (default 1000)")->check(CLI::Range(1, 100000));
  serve_app->add_option("--max-in-flight", serve.max_in_flight,
                        "Translations computed at once; more are answered 503 (default 8)")->check(CLI::Range(1, 64));

  attnlab::ReportCommandOptions report;
  CLI::App* report_app = app.add_subcommand(
      "report",
      "Write one self-contained HTML page about a run: loss, learning-rate and validation curves (BLEU when the "
      "metrics have it) from metrics.jsonl, sample translations of the test split (else the validation split; "
      "their paths as the run's config.yaml has them, from the current folder), and the attention maps of one "
      "sentence. Prints the page's path.");
  report_app->add_option("--run", report.run, "The run folder")->required();
  report_app->add_option("--out", report.out, "The HTML file to write (default RUN/report.html)");
  report_app->add_option("--text", report.text, "The sentence whose attention is drawn (default: the first sample)");
  report_app->add_option("--samples", report.samples, "How many sample translations (default 8)");
  report_app->add_option("--checkpoint", report.checkpoint,
                         "best (default), latest, or the path of a checkpoint file");

  attnlab::BenchCommandOptions bench;
  int64_t bench_threads = 0;
  CLI::App* bench_app = app.add_subcommand(
      "bench",
      "Time the training step of a config's model on a synthetic batch (B sentences × T random ids each side, "
      "fixed seed; the config's data section is not read): median step time, forward / backward / optimizer "
      "split, tokens/s, model GFLOP/s against a GEMM peak measured on the spot, greedy and beam decoding "
      "sentences/s (one at a time and batched), peak RSS. tools/bench.sh compares it with PyTorch; README.md "
      "\"Performance\" explains it. With --profile instead: the same steps on 1 thread and on --threads, every op's "
      "forward and backward timed (calls, ms per step, share of the step, speed-up). "
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
                        "Sentences translated for the decoding figures, to at most 32 tokens each: one at a time, "
                        "then all at once in batches of decode.batch_tokens (default 100; 0 skips decoding)");
  bench_app->add_flag("--json", bench.json, "Print one JSON object instead of the table");
  bench_app->add_flag("--profile", bench.profile,
                      "Time every op, forward and backward, on 1 thread and on --threads: where the step's time goes "
                      "and which ops do not speed up (no decoding figures)");
  bench_app->add_option("--set", bench.overrides, "Override a config key, e.g. --set model.d_model=512 (repeatable)");
  bench_app->add_flag("--sweep-length", bench.sweep_length,
                      "Time one attention layer of every kind at growing n instead of a model (see above)");
  bench_app->add_option("--kinds", bench.kinds,
                        "With --sweep-length: the kinds to time (default all: scaled_dot additive simplified sagan "
                        "external linear window; window = scaled_dot with 16 keys each side)");
  bench_app->add_option("--max-length", bench.max_length, "With --sweep-length: the largest n (default 2048)");
  bench_app->add_option("--out", bench.out,
                        "With --sweep-length: the folder for length_sweep.md and length_sweep.svg (default docs)");

  attnlab::GradvarCommandOptions gradvar;
  CLI::App* gradvar_app = app.add_subcommand(
      "gradvar",
      "How noisy is a parameter's gradient? At each chosen step of a run (its step checkpoints; 0 = the initial "
      "weights), K gradients (as training computes them, before clipping, dropout off) of each parameter: of one "
      "training batch K times (source 'batch': only hard attention's sampling varies) and of K different batches "
      "('batches'). Prints per row ‖ḡ‖² (the mean gradient's squared length), tr Σ̂ (the sample covariance's "
      "trace: one gradient's expected squared distance from the mean) and SNR = ‖ḡ‖² / tr Σ̂ (≈ 1/K: no signal). "
      "README chapter 4 and src/train/gradient_variance.h explain it.");
  gradvar_app->add_option("--run", gradvar.runs, "A run folder (repeatable: several runs in one table and plot)")
      ->required();
  gradvar_app->add_option("--param", gradvar.parameters,
                          "A parameter name, e.g. decoder.layers.0.encoder_attn.q_proj.weight (repeatable; default: "
                          "W_Q and W_K of every cross-attention)");
  gradvar_app->add_option("--samples", gradvar.samples, "K, gradients per row (default 32; at least 2)");
  gradvar_app->add_option("--steps", gradvar.steps,
                          "Steps to measure, comma-separated, e.g. 0,500,1500 (default: 0 and every step checkpoint)")
      ->delimiter(',');
  gradvar_app->add_option("--source", gradvar.sources, "batch or batches (repeatable; default both)")
      ->check(CLI::IsMember({"batch", "batches"}));
  gradvar_app->add_option("--seed", gradvar.seed, "Seed of hard attention's sampling (default 1)");
  gradvar_app->add_flag("--json", gradvar.json, "Print one JSON object instead of the table");
  gradvar_app->add_option("--out", gradvar.out, "Also write DIR/gradvar.md and DIR/gradvar.svg (SNR by step)");

  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off (default info)")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    return refuse_command_line(app, error, argc, argv);
  }
  if (corpus_size_option->count() > 0) corpus.size = corpus_size;
  if (eval_beam_option->count() > 0) eval.beam = eval_beam;
  if (trace_target_option->count() > 0) trace.target = trace_target;
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
    if (*eval_app) return attnlab::eval_command(eval);
    if (*trace_app) return attnlab::trace_command(trace);
    if (*attention_app) return attnlab::attention_command(attention);
    if (*report_app) return attnlab::report_command(report);
    if (*serve_app) return attnlab::serve_command(serve);
    if (*bench_app) return attnlab::bench_command(bench);
    if (*gradvar_app) {
      gradvar.command_line = "attnlab";
      for (int i = 1; i < argc; ++i) gradvar.command_line += " " + std::string(argv[i]);
      return attnlab::gradvar_command(gradvar);
    }
  } catch (const attnlab::Error& e) {
    std::fprintf(stderr, "attnlab: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnlab: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
