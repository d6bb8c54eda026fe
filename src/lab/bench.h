// bench.h — how fast is a training step, and where does the time go? (`attnlab bench`)
//
// The benchmark builds the model of a config, feeds it one synthetic batch — B sentences of T random token ids on
// each side, drawn from a fixed seed, no padding — and times the training step `attnlab train` runs
// (train/step.h: hard attention's REINFORCE term and train.accumulate included), phase by phase:
//     forward   loss = CE_ls(model(src, tgt_in), targets)  (+ the score-function term for hard attention)
//     backward  loss.backward()                       (and freeing the graph)
//     optimizer zero_grad; clip_grad_norm; Adam step
// Each phase is timed on every step; the report gives medians (a shared machine makes single runs noisy).
//
// Work per step: 3 · the forward pass's matrix-product FLOPs, counted analytically from the shapes
// (train/utilisation.h has the formula; `attnlab train` prints the same figure as its MFU).
// GFLOP/s alone says little without knowing what the machine can do, so the benchmark also measures a GEMM peak
// on the spot: a large square product [n, n] · [n, n] through the same matmul op the model uses, 2n³ operations.
// The model's share of that peak is the fraction of the machine's matrix speed the training step achieves.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "data/batch.h"
#include "lab/bench_gemm.h"
#include "model/transformer.h"
#include "run/config.h"
#include "tensor/token_ids.h"
#include "train/step.h"
#include "train/utilisation.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct BenchOptions {
  int64_t steps = 10;              // timed training steps
  int64_t warmup = 2;              // untimed steps first (buffers grow, caches warm)
  int64_t batch = 64;              // B sentences
  int64_t length = 32;             // T tokens on each side (source, and target including bos / eos)
  int64_t vocab = 0;               // vocabulary of the synthetic ids; 0 = tokenizer.vocab_size of the config
  int64_t decode_sentences = 100;  // sentences translated one at a time (as `attnlab translate` does for a person
                                   // typing), then again all at once in batches of decode.batch_tokens
  int64_t decode_length = 32;      // each translation is cut at this many tokens
  int64_t beam = 4;                // beam size of the beam-search figure
  int64_t gemm_size = 1024;        // n of the [n, n] · [n, n] product that measures the GEMM peak
  uint64_t seed = 1;               // the synthetic batch and the model's initialisation
};

struct BenchResult {
  int threads = 1;
  int64_t parameters = 0;
  int64_t tokens_per_step = 0;  // B · (S + T)
  double step_seconds = 0;      // medians over the timed steps
  double forward_seconds = 0;
  double backward_seconds = 0;
  double optimizer_seconds = 0;
  double tokens_per_second = 0;        // tokens_per_step / step_seconds
  double step_flops = 0;               // 3 · forward FLOPs (see above)
  double model_gflops_per_second = 0;  // step_flops / step_seconds / 1e9
  double gemm_gflops_per_second = 0;   // the measured peak
  double peak_share = 0;               // model / peak
  Gemm model_gemm = Gemm::packed;      // the backend the model's fused products ran on (model.gemm, resolved)
  Precision model_precision = Precision::float32;  // the number format of those products (model.precision)
  std::vector<GemmShape> gemm_shapes;              // the model's products (bench_gemm.h) …
  std::vector<GemmSpeed> gemm_backends;            // … and every backend's speed at them, on the same threads
  double greedy_sentences_per_second = 0;
  double greedy_mean_length = 0;  // output tokens per sentence actually produced (eos may stop early)
  double beam_sentences_per_second = 0;
  double greedy_batched_sentences_per_second = 0;  // the same sentences sorted by length, in batches
  double beam_batched_sentences_per_second = 0;
  double training_peak_rss_mb = 0;  // the process's peak resident memory when the training steps end, MiB
  double peak_rss_mb = 0;           // the same at the very end (after the GEMM peak and decoding), MiB
};

// A [B, length] batch of random ids in [4, vocab) (no special ids), from `gen`.
TokenIds random_ids(int64_t B, int64_t length, int64_t vocab, Generator& gen);

// The process's peak resident set size so far, in MiB (getrusage's ru_maxrss).
double peak_rss_mb();

// Bench's training: the model of `config` with every vocabulary `vocab`, weights drawn from `seed`, dropout from
// seed + 1 (as `attnlab train` draws them from train.seed), Adam(W), one process. step() is train/step.h's
// training_step on the batches next_batch hands out (train.accumulate of them per step).
struct BenchTraining {
  BenchTraining(const RunConfig& config, int64_t vocab, uint64_t seed);
  StepResult step(const std::function<const Batch&()>& next_batch);
  static ModelConfig with_vocab(ModelConfig model, int64_t vocab);

  const RunConfig& config;
  ModelConfig model_config;
  Generator init;
  Seq2Seq model;
  std::vector<NamedParameter> parameters;
  Optimizer optimizer;
  Generator dropout_generator;
  Ranks one_process;
  int64_t steps = 0;
};

// Everything above for the model of `config` (its data section is not read: the batch is synthetic).
// Throws attnlab::Error for options out of range (steps < 1, batch < 1, length < 2, vocab ≤ 4, …).
BenchResult run_bench(const RunConfig& config, const BenchOptions& options);

// ---- The op profile: `attnlab bench --profile` (util/profile.h says how each op is timed) ----
// The same training steps as run_bench, run once on 1 thread and once on N (train.threads, or --threads), with
// every op's forward and backward timed, summed per op kind. Times are per step (the mean over the timed steps).
struct ProfileRow {
  std::string op;    // "matmul", "softmax", "layer_norm", … or "adam", "clip_grad_norm", "zero_grad"
  std::string pass;  // "forward", "backward" or "other" (not an op of the graph)
  double calls_per_step = 0;
  double ms_one = 0;   // ms per step on 1 thread
  double ms_many = 0;  // ms per step on N threads
};
struct ProfileResult {
  int threads = 1;                                   // N
  double step_ms_one = 0, step_ms_many = 0;          // the whole step; what no row accounts for is outside any op
  double gemm_gflops_one = 0, gemm_gflops_many = 0;  // the GEMM peak (measure_gemm_gflops) on 1 and on N threads
  std::vector<ProfileRow> rows;                      // most time on N threads first
};
ProfileResult run_profile(const RunConfig& config, const BenchOptions& options);

// The median of a non-empty list (the mean of the middle two for an even count).
double median(std::vector<double> values);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
