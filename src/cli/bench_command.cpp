// bench_command.cpp — `attnlab bench`: time the training step of a config's model on a synthetic batch, the
// GEMM peak of this machine, decoding speed and peak memory (src/lab/bench.h says what and how), and print them
// as a table or, with --json, as one JSON object (tools/bench.sh reads that). With --sweep-length, the growth of
// each attention kind with the sentence length instead (src/lab/length_sweep.h).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "lab/bench.h"
#include "lab/bench_bf16.h"
#include "lab/length_sweep.h"
#include "run/config_io.h"
#include "tensor/product/blas_product.h"
#include "tensor/vector_unit.h"
#include "util/error.h"
#include "util/files.h"
#include "util/suggest.h"

namespace attnlab {

struct BenchCommandOptions {
  std::string config;                  // the model to time (its data section is not read)
  std::vector<std::string> overrides;  // --set key=value
  std::optional<int64_t> threads;      // --threads: overrides train.threads
  int64_t steps = 10;                  // timed training steps
  int64_t warmup = 2;                  // untimed steps before them
  int64_t batch = 64;                  // sentences per batch
  int64_t length = 32;                 // tokens per sentence, each side
  int64_t vocab = 0;                   // 0: tokenizer.vocab_size
  int64_t decode_sentences = 100;      // sentences translated for the decoding figures (0: skip)
  bool json = false;                   // one JSON object instead of the table
  bool profile = false;                // instead: every op timed, on 1 thread and on --threads (bench.h, run_profile)
  bool sweep_length = false;           // instead: time one attention layer of each kind at n = 32 … 2048
  std::vector<std::string> kinds;      // the sweep's kinds (empty: all)
  int64_t max_length = 2048;           // the sweep's largest n
  std::string out = "docs/results";    // where the sweep writes length_sweep.md and length_sweep.svg
};

namespace {

// The number format the model's products ran in: model.precision's name in the float32 build ("float32",
// "bfloat16", "bfloat16-emulated"); "float64" in the float64 build, which computes everything in it.
std::string products_precision(const BenchResult& r) {
  return sizeof(real) == 4 ? name_of(r.model_precision) : "float64";
}

nlohmann::json as_json(const std::string& config_path, const BenchOptions& options, const BenchResult& r,
                       const Bf16Speed& bf16) {
  nlohmann::json backend_speeds = nlohmann::json::object();  // {"eigen": GFLOP/s, "packed": …, "blas": …}
  for (const GemmSpeed& speed : r.gemm_backends) backend_speeds[name_of(speed.gemm)] = speed.gflops_per_second;
  return nlohmann::json{
      {"program", "attnlab"},
      {"precision", products_precision(r)},  // the model's products: float32, bfloat16, … (float64 build: float64)
      {"vectors", vector_unit()},            // the build's vector width: "AVX-512, 16 floats a vector"
      {"config", config_path},
      {"threads", r.threads},
      {"parameters", r.parameters},
      {"batch", options.batch},
      {"length", options.length},
      {"steps", options.steps},
      {"tokens_per_step", r.tokens_per_step},
      {"step_ms", 1e3 * r.step_seconds},
      {"forward_ms", 1e3 * r.forward_seconds},
      {"backward_ms", 1e3 * r.backward_seconds},
      {"optimizer_ms", 1e3 * r.optimizer_seconds},
      {"tokens_per_s", r.tokens_per_second},
      {"gflop_per_step", r.step_flops / 1e9},
      {"model_gflop_per_s", r.model_gflops_per_second},
      {"gemm_gflop_per_s", r.gemm_gflops_per_second},
      {"peak_share", r.peak_share},
      {"model_gemm", name_of(r.model_gemm)},
      {"blas", blas_description()},
      {"gemm_backends_gflop_per_s", backend_speeds},
      {"bf16_support", bf16.support},
      {"bf16_gflop_per_s", bf16.measured ? nlohmann::json(bf16.bf16.gflops_per_second) : nlohmann::json()},
      {"bf16_packed_gflop_per_s", bf16.measured ? nlohmann::json(bf16.packed.gflops_per_second) : nlohmann::json()},
      {"greedy_sentences_per_s", r.greedy_sentences_per_second},
      {"greedy_mean_length", r.greedy_mean_length},
      {"beam", options.beam},
      {"beam_sentences_per_s", r.beam_sentences_per_second},
      {"greedy_batched_sentences_per_s", r.greedy_batched_sentences_per_second},
      {"beam_batched_sentences_per_s", r.beam_batched_sentences_per_second},
      {"training_peak_rss_mb", r.training_peak_rss_mb},
      {"peak_rss_mb", r.peak_rss_mb},
  };
}

// Each backend's GFLOP/s at the model's shapes (lab/bench_gemm.h), per shape and over the step's products.
void print_gemm_backends(const BenchResult& r) {
  std::printf("  GEMM at the model's shapes, GFLOP/s (the model's: %s; blas: %s)\n", name_of(r.model_gemm).c_str(),
              blas_description().c_str());
  std::printf("    %-8s %9s", "backend", "all");
  for (const GemmShape& shape : r.gemm_shapes) {
    std::printf(" %14s", (shape.name + " x" + std::to_string(shape.count)).c_str());
  }
  std::printf("\n");
  for (const GemmSpeed& speed : r.gemm_backends) {
    std::printf("    %-8s %9.1f", name_of(speed.gemm).c_str(), speed.gflops_per_second);
    for (double gflops : speed.shape_gflops) std::printf(" %14.1f", gflops);
    std::printf("\n");
  }
}

// The bf16 product at the same shapes (lab/bench_bf16.h), beside the float32 packed GEMM timed in turn with it.
void print_bf16(const Bf16Speed& bf16) {
  if (!bf16.measured) {
    std::printf("    %-8s not measured: %s\n", "bf16", bf16.support.c_str());
    return;
  }
  std::printf("    %-8s %9.1f", "bf16", bf16.bf16.gflops_per_second);
  for (double gflops : bf16.bf16.shape_gflops) std::printf(" %14.1f", gflops);
  std::printf(
      "\n      (operands rounded to bfloat16, float32 sums, on %s: %.2f× the float32 packed GEMM timed in "
      "turn with it, %.1f GFLOP/s; the model's products use it under model.precision: bfloat16)\n",
      bf16.support.c_str(), bf16.bf16.gflops_per_second / bf16.packed.gflops_per_second, bf16.packed.gflops_per_second);
  if (bf16.bf16.gflops_per_second < bf16.packed.gflops_per_second) {  // e.g. vdpbf16ps on a Xeon without AMX's tiles
    std::printf(
        "      bfloat16 multiplies slower than float32 on this CPU: model.precision: float32 trains faster here\n");
  }
}

void print_table(const std::string& config_path, const BenchOptions& options, int64_t batch_tokens,
                 const BenchResult& r, const Bf16Speed& bf16) {
  std::printf("attnlab bench %s: %.2f M parameters, batch %lld × %lld tokens each side, %d threads, %s\n",
              config_path.c_str(), static_cast<double>(r.parameters) / 1e6, static_cast<long long>(options.batch),
              static_cast<long long>(options.length), r.threads, products_precision(r).c_str());
  // Outside float32, add_product (tensor/product/product.h) sends every product to the bf16 kernel, whatever
  // model.gemm says.
  const std::string products = r.model_precision == Precision::float32
                                   ? "on " + name_of(r.model_gemm) + " (model.gemm)"
                                   : "in " + name_of(r.model_precision) + " (model.precision; model.gemm is not used)";
  std::printf("  built for          %s; the model's products %s\n", vector_unit().c_str(), products.c_str());
  std::printf("  training step      %9.1f ms   (median of %lld steps after %lld warm-up)\n", 1e3 * r.step_seconds,
              static_cast<long long>(options.steps), static_cast<long long>(options.warmup));
  std::printf("    forward          %9.1f ms\n", 1e3 * r.forward_seconds);
  std::printf("    backward         %9.1f ms\n", 1e3 * r.backward_seconds);
  std::printf("    optimizer        %9.1f ms   (clip, Adam, zero_grad)\n", 1e3 * r.optimizer_seconds);
  std::printf("  tokens/s           %9.0f      (source + target, %lld per step)\n", r.tokens_per_second,
              static_cast<long long>(r.tokens_per_step));
  std::printf("  model              %9.1f GFLOP/s (%.1f GFLOP per step = 3 × forward matmuls)\n",
              r.model_gflops_per_second, r.step_flops / 1e9);
  const long long n = static_cast<long long>(options.gemm_size);
  std::printf(
      "  GEMM peak          %9.1f GFLOP/s ([%lld, %lld] · [%lld, %lld] through matmul): model at %.0f%% of it\n",
      r.gemm_gflops_per_second, n, n, n, n, 100 * r.peak_share);
  print_gemm_backends(r);
  print_bf16(bf16);
  if (options.decode_sentences > 0) {
    std::printf("  greedy decoding    %9.2f sentences/s (%lld sentences one at a time, ≤ %lld tokens; mean %.1f)\n",
                r.greedy_sentences_per_second, static_cast<long long>(options.decode_sentences),
                static_cast<long long>(options.decode_length), r.greedy_mean_length);
    std::printf("  beam decoding (%lld) %9.2f sentences/s\n", static_cast<long long>(options.beam),
                r.beam_sentences_per_second);
    std::printf(
        "  greedy, batched    %9.2f sentences/s (the same sentences sorted by length, batches of ≤ %lld "
        "source tokens)\n",
        r.greedy_batched_sentences_per_second, static_cast<long long>(batch_tokens));
    std::printf("  beam (%lld), batched %9.2f sentences/s\n", static_cast<long long>(options.beam),
                r.beam_batched_sentences_per_second);
  }
  std::printf("  peak RSS           %9.1f MiB while training, %.1f MiB at the end\n", r.training_peak_rss_mb,
              r.peak_rss_mb);
}

// --sweep-length: the growth of each attention kind with n, as a table (stdout and DIR/length_sweep.md) and a plot.
int sweep_command(const BenchCommandOptions& options) {
  SweepOptions sweep;
  sweep.kinds = options.kinds;
  sweep.max_length = options.max_length;
  std::vector<SweepSeries> series = run_length_sweep(sweep);
  const std::string table = sweep_markdown(series, sweep);
  std::filesystem::create_directories(options.out);
  write_file_atomically(options.out + "/length_sweep.md", table);
  write_file_atomically(options.out + "/length_sweep.svg", sweep_svg(series, sweep));
  std::printf("%s\nwrote %s/length_sweep.md and %s/length_sweep.svg\n", table.c_str(), options.out.c_str(),
              options.out.c_str());
  return 0;
}

// `--profile`: one line per (op, pass), most time first, and the step against the GEMM peak.
void print_profile(const std::string& config_path, const BenchOptions& options, const ProfileResult& p) {
  const int n = p.threads;
  std::printf(
      "attnlab bench --profile %s: batch %lld × %lld tokens each side, %lld steps after %lld warm-up, "
      "1 thread against %d\n",
      config_path.c_str(), static_cast<long long>(options.batch), static_cast<long long>(options.length),
      static_cast<long long>(options.steps), static_cast<long long>(options.warmup), n);
  std::printf("%-26s %-8s %8s %11s %11s %7s %8s\n", "op", "pass", "calls", "ms (1 thr)", "ms (N thr)", "share",
              "speed-up");
  double accounted_one = 0, accounted_many = 0;
  for (const ProfileRow& r : p.rows) {
    accounted_one += r.ms_one;
    accounted_many += r.ms_many;
    std::printf("%-26s %-8s %8.0f %11.2f %11.2f %6.1f%% %7.2fx\n", r.op.c_str(), r.pass.c_str(), r.calls_per_step,
                r.ms_one, r.ms_many, 100 * r.ms_many / p.step_ms_many, r.ms_many > 0 ? r.ms_one / r.ms_many : 0.0);
  }
  const double outside_one = p.step_ms_one - accounted_one, outside_many = p.step_ms_many - accounted_many;
  std::printf("%-26s %-8s %8s %11.2f %11.2f %6.1f%% %7.2fx\n", "(outside any op)", "", "", outside_one, outside_many,
              100 * outside_many / p.step_ms_many, outside_many > 0 ? outside_one / outside_many : 0.0);
  std::printf("%-26s %-8s %8s %11.2f %11.2f %6.1f%% %7.2fx\n", "training step", "", "", p.step_ms_one, p.step_ms_many,
              100.0, p.step_ms_one / p.step_ms_many);
  const double gemm_speedup = p.gemm_gflops_many / p.gemm_gflops_one;
  std::printf(
      "GEMM peak: %.1f GFLOP/s on 1 thread, %.1f on %d (%.2fx). The step sped up %.2fx: %.2f of the GEMM's "
      "speed-up.\n",
      p.gemm_gflops_one, p.gemm_gflops_many, n, gemm_speedup, p.step_ms_one / p.step_ms_many,
      (p.step_ms_one / p.step_ms_many) / gemm_speedup);
}

nlohmann::json profile_json(const std::string& config_path, const BenchOptions& options, const ProfileResult& p) {
  nlohmann::json rows = nlohmann::json::array();
  for (const ProfileRow& r : p.rows) {
    rows.push_back({{"op", r.op},
                    {"pass", r.pass},
                    {"calls_per_step", r.calls_per_step},
                    {"ms_1_thread", r.ms_one},
                    {"ms_n_threads", r.ms_many},
                    {"share", r.ms_many / p.step_ms_many},
                    {"speedup", r.ms_many > 0 ? r.ms_one / r.ms_many : 0.0}});
  }
  return nlohmann::json{{"program", "attnlab"},
                        {"config", config_path},
                        {"batch", options.batch},
                        {"length", options.length},
                        {"steps", options.steps},
                        {"threads", p.threads},
                        {"step_ms_1_thread", p.step_ms_one},
                        {"step_ms_n_threads", p.step_ms_many},
                        {"step_speedup", p.step_ms_one / p.step_ms_many},
                        {"gemm_gflop_per_s_1_thread", p.gemm_gflops_one},
                        {"gemm_gflop_per_s_n_threads", p.gemm_gflops_many},
                        {"gemm_speedup", p.gemm_gflops_many / p.gemm_gflops_one},
                        {"ops", rows}};
}

}  // namespace

int bench_command(const BenchCommandOptions& options) {
  if (options.sweep_length) return sweep_command(options);
  if (options.config.empty())
    throw Error("attnlab bench needs --config FILE (e.g. configs/bench/base.yaml), or --sweep-length");
  std::vector<std::string> overrides = options.overrides;
  if (options.threads) overrides.push_back("train.threads=" + std::to_string(*options.threads));
  RunConfig config = load_config(options.config, overrides);
  BenchOptions bench;
  bench.steps = options.steps;
  bench.warmup = options.warmup;
  bench.batch = options.batch;
  bench.length = options.length;
  bench.vocab = options.vocab;
  bench.decode_sentences = options.decode_sentences;
  if (options.profile) {
    ProfileResult profile = run_profile(config, bench);
    if (options.json)
      std::printf("%s\n", profile_json(options.config, bench, profile).dump().c_str());
    else
      print_profile(options.config, bench, profile);
    return 0;
  }
  BenchResult result = run_bench(config, bench);
  const Bf16Speed bf16 = measure_bf16_product(result.gemm_shapes, 5);
  if (options.json)
    std::printf("%s\n", as_json(options.config, bench, result, bf16).dump().c_str());
  else
    print_table(options.config, bench, config.decode.batch_tokens, result, bf16);
  return 0;
}

// `attnlab bench`: its options and their help texts, read into BenchCommandOptions; main.cpp runs it.
Subcommand add_bench_command(CLI::App& app) {
  auto options = std::make_shared<BenchCommandOptions>();
  auto threads = std::make_shared<int64_t>(0);  // --threads as given; options->threads stays empty without it
  CLI::App* subcommand = app.add_subcommand(
      "bench",
      "Time the training step of a config's model on a synthetic batch (B sentences × T random ids each side, "
      "fixed seed; the config's data section is not read): median step time, forward / backward / optimizer "
      "split, tokens/s, model GFLOP/s against a GEMM peak measured on the spot, each product backend's GFLOP/s at "
      "the model's shapes and the bfloat16 product's beside them (where the CPU has AVX512_BF16), greedy and beam "
      "decoding "
      "sentences/s (one at a time and batched), peak RSS. tools/bench.sh compares it with PyTorch; "
      "docs/guide/performance.md explains it. With --profile instead: the same steps on 1 thread and on --threads, "
      "every op's "
      "forward and backward timed (calls, ms per step, share of the step, speed-up). "
      "With --sweep-length instead: one encoder self-attention layer of each kind (d_model 64, batch 1) timed "
      "forward + backward (CPU time, one thread) at n = 32, 64, …, 2048, written as a Markdown table and an SVG "
      "log-log plot with a fitted growth exponent per kind.");
  subcommand->add_option(
      "--config", options->config,
      "The config whose model to time (e.g. configs/bench/base.yaml); required unless --sweep-length");
  subcommand->add_option("--steps", options->steps, "Timed training steps (default 10)");
  subcommand->add_option("--warmup", options->warmup, "Untimed training steps before them (default 2)");
  CLI::Option* threads_option =
      subcommand->add_option("--threads", *threads, "CPU threads (default: train.threads; 0 = all cores)");
  subcommand->add_option("--batch", options->batch, "Sentences per batch (default 64)");
  subcommand->add_option("--length", options->length, "Tokens per sentence on each side (default 32)");
  subcommand->add_option("--vocab", options->vocab, "Vocabulary of the random ids (default: tokenizer.vocab_size)");
  subcommand->add_option("--decode-sentences", options->decode_sentences,
                         "Sentences translated for the decoding figures, to at most 32 tokens each: one at a time, "
                         "then all at once in batches of decode.batch_tokens (default 100; 0 skips decoding)");
  subcommand->add_flag("--json", options->json, "Print one JSON object instead of the table");
  subcommand->add_flag("--profile", options->profile,
                       "Time every op, forward and backward, on 1 thread and on --threads: where the step's time "
                       "goes and which ops do not speed up (no decoding figures)");
  subcommand->add_option("--set", options->overrides,
                         "Override a config key, e.g. --set model.d_model=512 (repeatable)");
  subcommand->add_flag("--sweep-length", options->sweep_length,
                       "Time one attention layer of every kind at growing n instead of a model (see above)");
  subcommand->add_option("--kinds", options->kinds,
                         "With --sweep-length: the kinds to time (default all: " + join(sweep_kinds(), " ") +
                             "; window = scaled_dot with 16 keys each side)");
  subcommand->add_option("--max-length", options->max_length, "With --sweep-length: the largest n (default 2048)");
  subcommand->add_option(
      "--out", options->out,
      "With --sweep-length: the folder for length_sweep.md and length_sweep.svg (default docs/results)");
  return {subcommand, [options, threads, threads_option] {
            if (threads_option->count() > 0) options->threads = *threads;
            return bench_command(*options);
          }};
}

}  // namespace attnlab
