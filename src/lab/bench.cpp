// bench.cpp — timing training steps, decoding and a GEMM (see bench.h for what is measured and the FLOP formula).
#include "lab/bench.h"

#include <spdlog/spdlog.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>

#include "autograd/ops.h"
#include "decode/batched.h"
#include "decode/greedy.h"
#include "decode/translate.h"
#include "tensor/parallel.h"
#include "tensor/storage.h"
#include "util/error.h"
#include "util/profile.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

struct DecodeTiming {
  double sentences_per_second = 0;
  double mean_length = 0;  // output tokens per sentence
};

// Translates `sentences` through src/decode/: one at a time (as `attnlab translate` does for a person typing), or
// all at once, sorted by length into batches of config.batch_tokens (batched.h; as eval and translate from a file
// do). Each output is cut at max_len_extra tokens (max_len_ratio is 0).
DecodeTiming time_decoding(Seq2Seq& model, const std::vector<std::vector<int32_t>>& sentences,
                           const DecodeConfig& config, bool batched) {
  int64_t produced = 0;
  const auto start = Clock::now();
  if (batched) {
    for (const std::vector<int32_t>& out : translate_batched(model, sentences, config))
      produced += static_cast<int64_t>(out.size());
  } else {
    for (const std::vector<int32_t>& src : sentences)  // [1, S] each
      produced += static_cast<int64_t>(translate_ids(model, pad_batch({src}), config).at(0).size());
  }
  const double seconds = seconds_between(start, Clock::now());
  DecodeTiming timing;
  timing.sentences_per_second = static_cast<double>(sentences.size()) / seconds;
  timing.mean_length = static_cast<double>(produced) / static_cast<double>(sentences.size());
  return timing;
}

void check_option(bool ok, const std::string& message) {
  if (!ok) throw Error("bench: " + message);
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) throw Error("median of an empty list");
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

TokenIds random_ids(int64_t B, int64_t length, int64_t vocab, Generator& gen) {
  TokenIds ids;
  ids.shape = Shape{B, length};
  ids.values.resize(static_cast<size_t>(B * length));
  for (int32_t& id : ids.values) id = static_cast<int32_t>(gen.integer(unk_id + 1, vocab));
  return ids;
}

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports kibibytes
}

namespace {

void check_options(const BenchOptions& options, int64_t vocab) {
  check_option(options.steps >= 1, "--steps must be at least 1");
  check_option(options.warmup >= 0, "--warmup must be 0 or more");
  check_option(options.batch >= 1, "--batch must be at least 1");
  check_option(options.length >= 2, "--length must be at least 2 (bos or eos plus one token)");
  check_option(vocab > unk_id + 1,
               "the vocabulary (--vocab, or tokenizer.vocab_size) must be more than 4, got " + std::to_string(vocab));
  check_option(options.decode_sentences >= 0, "--decode-sentences must be 0 or more");
  check_option(options.decode_length >= 1, "the decoding length must be at least 1");
  check_option(options.gemm_size >= 1, "the GEMM size must be at least 1");
}

// The synthetic batch: B sentences of T random ids on each side (tgt_in = bos + words, targets = words + eos).
Batch synthetic_batch(int64_t B, int64_t T, int64_t vocab, Generator& data) {
  Batch batch;
  batch.src = random_ids(B, T, vocab, data);           // [B, T]
  TokenIds words = random_ids(B, T - 1, vocab, data);  // [B, T − 1]: the target sentences
  batch.tgt_in = TokenIds{Shape{B, T}, {}};
  batch.targets = TokenIds{Shape{B, T}, {}};
  for (int64_t b = 0; b < B; ++b) {
    const auto row = words.values.begin() + b * (T - 1);
    batch.tgt_in.values.push_back(bos_id);
    batch.tgt_in.values.insert(batch.tgt_in.values.end(), row, row + (T - 1));
    batch.targets.values.insert(batch.targets.values.end(), row, row + (T - 1));
    batch.targets.values.push_back(eos_id);
  }
  batch.src_tokens = batch.tgt_tokens = B * T;
  return batch;
}

}  // namespace

BenchTraining::BenchTraining(const RunConfig& run_config, int64_t vocab, uint64_t seed)
    : config(run_config),
      model_config(with_vocab(run_config.model, vocab)),
      init(seed),
      model(model_config, init),
      parameters(model.named_parameters()),
      optimizer(parameters, config.train),
      dropout_generator(seed + 1) {}

StepResult BenchTraining::step(const std::function<const Batch&()>& next_batch) {
  ++steps;
  Learner learner{model, parameters, optimizer, dropout_generator, one_process, config.train, model_config.d_model, {}};
  const auto next_part = [&](ForwardContext& ctx) {
    return translation_part(model, next_batch(), one_process, static_cast<real>(config.train.label_smoothing), ctx);
  };
  const StepResult result = training_step(learner, next_part, steps);  // the step `attnlab train` runs
  spdlog::debug("bench: step {} loss {:.4f}", steps, result.loss);
  return result;
}

ModelConfig BenchTraining::with_vocab(ModelConfig m, int64_t vocab) {
  m.src_vocab = vocab;
  m.tgt_vocab = vocab;
  return m;
}

namespace {

// The model of a config with its synthetic batch, every step on that batch.
struct SyntheticTraining {
  SyntheticTraining(const RunConfig& config, const BenchOptions& options, int64_t vocab)
      : training(config, vocab, options.seed),
        data(options.seed + 100),
        batch(synthetic_batch(options.batch, options.length, vocab, data)) {}
  StepResult step() {
    return training.step([this]() -> const Batch& { return batch; });
  }
  BenchTraining training;
  Generator data;  // the batch's ids, then the sentences to decode
  Batch batch;
};

}  // namespace

BenchResult run_bench(const RunConfig& config, const BenchOptions& options) {
  const int64_t vocab = options.vocab > 0 ? options.vocab : config.tokenizer.vocab_size;
  check_options(options, vocab);
  BenchResult result;
  result.threads = use_threads(config.train.threads);
  SyntheticTraining training(config, options, vocab);
  const ModelConfig& model_config = training.training.model_config;
  Seq2Seq& model = training.training.model;
  Generator& data = training.data;  // the sentences to decode
  result.parameters = model.parameter_count();
  const int64_t B = options.batch, T = options.length, parts = config.train.accumulate;
  result.tokens_per_step = B * 2 * T * parts;
  spdlog::info("bench: {} parameters, batch {} × {} tokens each side, vocabulary {}, {} threads", result.parameters, B,
               T, vocab, result.threads);

  // ---- training steps: forward, backward, optimizer, each timed ----
  std::vector<double> step_s, forward_s, backward_s, optimizer_s;
  for (int64_t step = 1; step <= options.warmup + options.steps; ++step) {
    const StepResult t = training.step();
    if (step <= options.warmup) continue;
    step_s.push_back(t.forward_seconds + t.backward_seconds + t.update_seconds);
    forward_s.push_back(t.forward_seconds);
    backward_s.push_back(t.backward_seconds);
    optimizer_s.push_back(t.update_seconds);
  }
  result.training_peak_rss_mb = peak_rss_mb();  // the "peak RSS during training"
  recycle_storage();                            // decoding reuses the memory training used (storage.h)
  result.step_seconds = median(step_s);
  result.forward_seconds = median(forward_s);
  result.backward_seconds = median(backward_s);
  result.optimizer_seconds = median(optimizer_s);
  result.tokens_per_second = static_cast<double>(result.tokens_per_step) / result.step_seconds;
  result.step_flops = 3 * forward_flops(model_config, B, T, T) * static_cast<double>(parts);
  result.model_gflops_per_second = result.step_flops / result.step_seconds / 1e9;

  // ---- the GEMM peak, measured now, on the same threads ----
  result.gemm_gflops_per_second = measure_gemm_gflops(options.gemm_size);
  result.peak_share = result.model_gflops_per_second / result.gemm_gflops_per_second;
  result.model_gemm = model.gemm();
  result.model_precision = model.precision();
  result.gemm_shapes = model_gemm_shapes(model_config, B, T);
  result.gemm_backends = measure_gemm_backends(result.gemm_shapes, 5);

  // ---- decoding: sentences of T random source tokens, one at a time and batched ----
  if (options.decode_sentences > 0) {
    std::vector<std::vector<int32_t>> sentences;
    for (int64_t i = 0; i < options.decode_sentences; ++i) sentences.push_back(random_ids(1, T, vocab, data).values);
    DecodeConfig decode = config.decode;
    decode.max_len_ratio = 0;  // the limit is max_len_extra tokens whatever the source length
    decode.max_len_extra = options.decode_length;
    decode.beam = 1;
    DecodeTiming greedy = time_decoding(model, sentences, decode, /*batched=*/false);
    result.greedy_sentences_per_second = greedy.sentences_per_second;
    result.greedy_mean_length = greedy.mean_length;
    result.greedy_batched_sentences_per_second = time_decoding(model, sentences, decode, true).sentences_per_second;
    decode.beam = options.beam;
    result.beam_sentences_per_second = time_decoding(model, sentences, decode, false).sentences_per_second;
    result.beam_batched_sentences_per_second = time_decoding(model, sentences, decode, true).sentences_per_second;
  }
  result.peak_rss_mb = peak_rss_mb();
  return result;
}

ProfileResult run_profile(const RunConfig& config, const BenchOptions& options) {
  const int64_t vocab = options.vocab > 0 ? options.vocab : config.tokenizer.vocab_size;
  check_options(options, vocab);
  ProfileResult result;
  result.threads = use_threads(config.train.threads);
  struct Measured {
    double step_ms = 0;
    std::vector<profile::Row> rows;
    double gemm_gflops_per_second = 0;
  };
  // The same steps (same model, batch and dropout masks) on `threads` threads, every op timed.
  auto measure = [&](int threads) {
    use_threads(threads);
    SyntheticTraining training(config, options, vocab);
    for (int64_t step = 0; step < options.warmup; ++step) training.step();
    Measured m;
    profile::start();
    for (int64_t step = 0; step < options.steps; ++step) {
      const StepResult t = training.step();
      m.step_ms += 1e3 * (t.forward_seconds + t.backward_seconds + t.update_seconds);
    }
    profile::stop();
    m.step_ms /= static_cast<double>(options.steps);
    m.rows = profile::rows();
    m.gemm_gflops_per_second = measure_gemm_gflops(options.gemm_size);
    return m;
  };
  const Measured one = measure(1);
  const Measured many = measure(result.threads);
  use_threads(result.threads);
  result.step_ms_one = one.step_ms;
  result.step_ms_many = many.step_ms;
  result.gemm_gflops_one = one.gemm_gflops_per_second;
  result.gemm_gflops_many = many.gemm_gflops_per_second;
  const double steps = static_cast<double>(options.steps);
  for (const profile::Row& r : many.rows) {
    ProfileRow row{r.op, profile::pass_name(r.pass), static_cast<double>(r.calls) / steps, 0, 1e3 * r.seconds / steps};
    for (const profile::Row& o : one.rows) {
      if (o.op == r.op && o.pass == r.pass) row.ms_one = 1e3 * o.seconds / steps;
    }
    result.rows.push_back(row);
  }
  std::stable_sort(result.rows.begin(), result.rows.end(),
                   [](const ProfileRow& a, const ProfileRow& b) { return a.ms_many > b.ms_many; });
  return result;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
