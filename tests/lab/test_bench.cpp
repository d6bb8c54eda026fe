// test_bench.cpp — `attnlab bench` measures what it says: it runs the very step `attnlab train` runs, the FLOP
// formula counts every matrix product of the model, the timings are consistent with each other, the benchmark
// configs are the issue's two models, and bad options are refused by name. The length sweep fits growth exponents correctly and draws a valid log–log plot.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "data/batching.h"
#include "data/corpus.h"
#include "lab/bench.h"
#include "lab/length_sweep.h"
#include "run/config_io.h"
#include "run/run.h"
#include "run/trainer.h"
#include "test_support.h"
#include "train/checkpoint.h"
#include "util/error.h"
#include "util/profile.h"
#include "util/svg_plot.h"

using namespace attnlab;

namespace {

const std::string tiny_yaml = R"(
data: {train_src: a.src, train_tgt: a.tgt}
model: {d_model: 8, heads: 2, d_ff: 16, encoder_layers: 1, decoder_layers: 1}
train: {threads: 1}
)";

// Three timed steps of the tiny model on 2 sentences of 4 random ids (of 12), a 16 × 16 GEMM.
BenchOptions tiny_options() {
  BenchOptions options;
  options.steps = 3;
  options.warmup = 1;
  options.batch = 2;
  options.length = 4;
  options.vocab = 12;
  options.gemm_size = 16;
  return options;
}

// A copy task of 2–6 symbols a line, and a config that trains on it: threads 1, so that the bits are repeatable.
std::string write_copy_run_config(const std::string& dir, const std::string& model_extra,
                                  const std::string& train_extra) {
  Generator gen(3);
  testing::write_copy_split(dir, "train", 120, gen);
  std::ofstream config(dir + "/config.yaml");
  config << "data:\n  train_src: " << dir << "/train.src\n  train_tgt: " << dir << "/train.tgt\n"
         << "tokenizer:\n  kind: word\n  shared: true\n"
         << "model:\n  d_model: 16\n  heads: 2\n  d_ff: 32\n  encoder_layers: 1\n  decoder_layers: 1\n"
         << "  dropout: 0.1\n" << model_extra
         << "train:\n  threads: 1\n  batch_tokens: 120\n  max_steps: 4\n  lr: 0.003\n  schedule: constant\n"
         << "  valid_every: 1000\n  checkpoint_every: 1000\n" << train_extra;
  return dir + "/config.yaml";
}

// train()'s weights after its steps, against bench's training (BenchTraining) stepped as often on the batches
// train() drew, in the order it drew them: Batcher::epoch(e) of the run's own token ids.
void check_bench_steps_as_train(const std::string& name, const std::string& model_extra,
                                const std::string& train_extra) {
  const std::string dir = testing::fresh_directory("test-bench", name).string();
  const std::string config_path = write_copy_run_config(dir, model_extra, train_extra);
  class Quiet : public TrainingObserver {} quiet;
  const TrainSummary summary = train({config_path, dir + "/run", {}, false}, quiet);
  REQUIRE(summary.step == 4);

  const RunConfig config = load_run_config(dir + "/run");
  const RunTokenizers tokenizers = load_run_tokenizers(config, dir + "/run");
  const std::vector<EncodedPair> pairs =
      encode_pairs(load_split(config.data, "train"), *tokenizers.src, *tokenizers.tgt, config.data.max_len, nullptr);
  const Batcher batcher(pairs, config.train.batch_tokens, config.train.seed);
  std::vector<Batch> drawn;
  for (int64_t epoch = 0; drawn.size() < 4 * static_cast<size_t>(config.train.accumulate); ++epoch) {
    for (Batch& batch : batcher.epoch(epoch)) drawn.push_back(std::move(batch));
  }
  BenchTraining bench(config, model_config_for(config, tokenizers).src_vocab, config.train.seed);
  size_t next = 0;
  for (int step = 0; step < 4; ++step) bench.step([&]() -> const Batch& { return drawn.at(next++); });
  CHECK(next == 4 * static_cast<size_t>(config.train.accumulate));

  Generator init(1);
  Seq2Seq trained(model_config_for(config, tokenizers), init);
  load_checkpoint(summary.checkpoint, trained, nullptr);
  const std::vector<NamedParameter> want = trained.named_parameters();
  REQUIRE(want.size() == bench.parameters.size());
  size_t differing = 0;
  for (size_t p = 0; p < want.size(); ++p) {
    const Tensor& a = want[p].tensor;
    const Tensor& b = bench.parameters[p].tensor;
    if (!std::equal(a.data(), a.data() + a.numel(), b.data())) ++differing;
  }
  CHECK_MESSAGE(differing == 0, differing, " of ", want.size(), " parameters differ between train and bench");
  // …and the steps moved the weights: a bench that did nothing would not match a trained run.
  Generator fresh_init(config.train.seed);
  Seq2Seq untrained(model_config_for(config, tokenizers), fresh_init);
  const Tensor first = untrained.named_parameters().front().tensor;   // a handle: the list is a temporary
  CHECK_FALSE(std::equal(first.data(), first.data() + first.numel(), want.front().tensor.data()));
}

}  // namespace

TEST_CASE("bench's step is train's step: the same weights after the same steps from the same seed, for hard "
          "attention (its REINFORCE term) and for train.accumulate: 2") {
  SUBCASE("hard attention") { check_bench_steps_as_train("hard", "  attention:\n    cross: hard\n", ""); }
  SUBCASE("accumulate 2") { check_bench_steps_as_train("accumulate", "", "  accumulate: 2\n"); }
}

TEST_CASE("the FLOP count is the sum of 2·n·k·m over every matrix product of a forward pass") {
  ModelConfig m;
  m.d_model = 4;
  m.heads = 2;
  m.d_ff = 8;
  m.encoder_layers = 1;
  m.decoder_layers = 1;
  m.tgt_vocab = 10;
  const double B = 1, S = 2, T = 3, d = 4, d_ff = 8, V = 10;
  auto product = [](double n, double k, double mm) { return 2 * n * k * mm; };   // [n, k] · [k, m]
  // Encoder layer: Q, K, V, O projections of the B·S tokens; per head q·kᵀ [S, d_k]·[d_k, S] and a·v
  // [S, S]·[S, d_k], h heads of d_k = d/h; the FFN's two linears.
  const double encoder = 4 * product(B * S, d, d) + 2 * B * product(S, d, S) + 2 * product(B * S, d, d_ff);
  // Decoder layer: the same self-attention and FFN on the B·T target tokens, and cross-attention: Q and O on the
  // target, K and V on the S memory tokens, scores [T, d]·[d, S], and a·v [T, S]·[S, d].
  const double decoder = 4 * product(B * T, d, d) + 2 * B * product(T, d, T) + 2 * product(B * T, d, d_ff) +
                         2 * product(B * T, d, d) + 2 * product(B * S, d, d) + B * product(T, d, S) +
                         B * product(T, S, d);
  const double output = product(B * T, d, V);
  CHECK(forward_flops(m, 1, 2, 3) == doctest::Approx(encoder + decoder + output));
  CHECK(forward_flops(m, 1, 2, 3) == doctest::Approx(2144));   // 576 + 1328 + 240, worked by hand
  m.encoder_layers = 3;                                         // each layer adds its own share
  CHECK(forward_flops(m, 1, 2, 3) == doctest::Approx(2144 + 2 * encoder));
}

TEST_CASE("a benchmark run gives consistent figures: every phase within its step, tokens/s = tokens / step") {
  RunConfig config = parse_config(tiny_yaml, "tiny.yaml");
  BenchOptions options = tiny_options();
  options.decode_sentences = 2;
  options.decode_length = 5;
  BenchResult r = run_bench(config, options);
  CHECK(r.threads == 1);
  CHECK(r.tokens_per_step == 2 * (4 + 4));
  CHECK(r.step_seconds > 0);
  // Each phase of a step takes at most the step, so its median is at most the step's median.
  for (double phase : {r.forward_seconds, r.backward_seconds, r.optimizer_seconds}) {
    CHECK(phase > 0);
    CHECK(phase <= r.step_seconds);
  }
  CHECK(r.tokens_per_second == doctest::Approx(16 / r.step_seconds));
  config.model.src_vocab = config.model.tgt_vocab = 12;
  CHECK(r.step_flops == doctest::Approx(3 * forward_flops(config.model, 2, 4, 4)));
  CHECK(r.model_gflops_per_second == doctest::Approx(r.step_flops / r.step_seconds / 1e9));
  CHECK(r.gemm_gflops_per_second > 0);
  CHECK(r.peak_share == doctest::Approx(r.model_gflops_per_second / r.gemm_gflops_per_second));
  CHECK(r.greedy_sentences_per_second > 0);
  CHECK(r.greedy_mean_length >= 0);
  CHECK(r.greedy_mean_length <= 5);
  CHECK(r.beam_sentences_per_second > 0);
  CHECK(r.greedy_batched_sentences_per_second > 0);
  CHECK(r.beam_batched_sentences_per_second > 0);
  CHECK(r.training_peak_rss_mb > 1);
  CHECK(r.peak_rss_mb >= r.training_peak_rss_mb);
}

TEST_CASE("the op profile accounts for the step: every op of the model, forward and backward, and the optimizer") {
  RunConfig config = parse_config(tiny_yaml, "tiny.yaml");
  config.train.threads = 2;
  ProfileResult p = run_profile(config, tiny_options());
  CHECK(p.threads == 2);
  REQUIRE(p.step_ms_one > 0);
  REQUIRE(p.step_ms_many > 0);
  std::map<std::string, ProfileRow> rows;
  double total_one = 0, total_many = 0;
  for (const ProfileRow& r : p.rows) {
    rows[r.op + " " + r.pass] = r;
    CHECK(r.calls_per_step > 0);
    total_one += r.ms_one;
    total_many += r.ms_many;
  }
  // The model's ops (on the fused path: fused_layer_norm is the kernel), forward and backward, and what the
  // optimizer does outside the graph.
  for (const char* row : {"embedding forward", "embedding backward", "fused_layer_norm forward",
                          "fused_layer_norm backward", "adam other", "clip_grad_norm other", "zero_grad other"}) {
    CAPTURE(row);
    CHECK(rows.count(row) == 1);
  }
  CHECK(rows["adam other"].calls_per_step == doctest::Approx(1));
  // The rows are parts of the step: together no more than the whole, and (for this tiny model, all ops) most of it.
  CHECK(total_one <= p.step_ms_one * 1.0001);
  CHECK(total_many <= p.step_ms_many * 1.0001);
  CHECK(total_many >= 0.5 * p.step_ms_many);
  // Sorted by time on N threads, the largest first.
  for (size_t i = 1; i < p.rows.size(); ++i) CHECK(p.rows[i - 1].ms_many >= p.rows[i].ms_many);
  CHECK(!profile::running());
}

TEST_CASE("bench refuses options it cannot run, naming the option") {
  RunConfig config = parse_config(tiny_yaml, "tiny.yaml");
  BenchOptions options;
  options.steps = 0;
  CHECK_THROWS_WITH_AS(run_bench(config, options), doctest::Contains("--steps"), Error);
  options = BenchOptions{};
  options.length = 1;
  CHECK_THROWS_WITH_AS(run_bench(config, options), doctest::Contains("--length"), Error);
  options = BenchOptions{};
  options.vocab = 4;
  CHECK_THROWS_WITH_AS(run_bench(config, options), doctest::Contains("vocabulary"), Error);
}

TEST_CASE("the median of an odd count is the middle value, of an even count the mean of the middle two") {
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK_THROWS_AS(median({}), Error);
}

TEST_CASE("configs/bench holds the issue's two models: base (8000, 256, 4 heads, 1024, 3 + 3) and small") {
  RunConfig base = load_config(std::string(ATTNLAB_SOURCE_DIR) + "/configs/bench/base.yaml");
  CHECK(base.tokenizer.vocab_size == 8000);
  CHECK(base.tokenizer.shared);
  CHECK(base.model.d_model == 256);
  CHECK(base.model.heads == 4);
  CHECK(base.model.d_ff == 1024);
  CHECK(base.model.encoder_layers == 3);
  CHECK(base.model.decoder_layers == 3);
  CHECK(base.model.norm == NormPlacement::post);
  CHECK(base.train.label_smoothing == doctest::Approx(0.1));
  CHECK(base.train.optimizer == OptimizerKind::adam);
  CHECK(base.train.beta2 == doctest::Approx(0.98));
  CHECK(base.train.eps == doctest::Approx(1e-9));
  RunConfig small = load_config(std::string(ATTNLAB_SOURCE_DIR) + "/configs/bench/small.yaml");
  CHECK(small.tokenizer.vocab_size == 1000);
  CHECK(small.model.d_model == 128);
  CHECK(small.model.heads == 4);
  CHECK(small.model.d_ff == 512);
  CHECK(small.model.encoder_layers == 2);
  CHECK(small.model.decoder_layers == 2);
  CHECK(small.train.label_smoothing == doctest::Approx(0.1));
}

TEST_CASE("the growth exponent is the slope on log–log axes: 2 for c·n², 1 for c·n, over the last points only") {
  const std::vector<double> n{32, 64, 128, 256, 512};
  std::vector<double> square, linear, bent;
  for (double x : n) {
    square.push_back(3 * x * x);
    linear.push_back(0.5 * x);
    bent.push_back(x < 100 ? 1000 : x);   // flat at first (fixed costs), then linear
  }
  CHECK(loglog_slope(n, square, 4) == doctest::Approx(2));
  CHECK(loglog_slope(n, linear, 4) == doctest::Approx(1));
  CHECK(loglog_slope(n, bent, 3) == doctest::Approx(1));
}

TEST_CASE("the length sweep times every kind asked for at each doubling of n, and refuses an unknown kind") {
  SweepOptions options;
  options.kinds = {"scaled_dot", "window", "linear"};
  options.min_length = 16;
  options.max_length = 32;
  std::vector<SweepSeries> series = run_length_sweep(options);
  REQUIRE(series.size() == 3);
  for (const SweepSeries& s : series) {
    CAPTURE(s.kind);
    CHECK(s.lengths == std::vector<int64_t>{16, 32});
    CHECK(std::all_of(s.seconds.begin(), s.seconds.end(), [](double t) { return t > 0; }));
  }
  const std::string table = sweep_markdown(series, options);
  CHECK(table.find("| n | scaled_dot | window | linear |") != std::string::npos);
  CHECK(table.find("| growth exponent |") != std::string::npos);
  const std::string svg = sweep_svg(series, options);
  CHECK(svg.find("reference ∝ n²") != std::string::npos);

  options.kinds = {"liner"};
  CHECK_THROWS_WITH_AS(run_length_sweep(options), doctest::Contains("did you mean 'linear'"), Error);
}

TEST_CASE("a log–log plot is an SVG document with one line per series, a legend entry each, and refuses x ≤ 0") {
  LogLogPlot plot;
  plot.title = "t";
  plot.series.push_back({"a <b>", {32, 64, 128}, {1, 2, 4}, false});
  plot.series.push_back({"ref", {32, 128}, {1, 16}, true});
  const std::string svg = loglog_svg(plot);
  CHECK(svg.rfind("<svg ", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  size_t lines = 0;
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) ++lines;
  CHECK(lines == 2);
  CHECK(svg.find("a &lt;b&gt;") != std::string::npos);     // text is escaped
  CHECK(svg.find("stroke-dasharray") != std::string::npos);  // the reference is dashed
  CHECK(svg.find(">128</text>") != std::string::npos);      // x ticks at powers of 2
  plot.series.push_back({"bad", {0, 1}, {1, 1}, false});
  CHECK_THROWS_AS(loglog_svg(plot), Error);
}
