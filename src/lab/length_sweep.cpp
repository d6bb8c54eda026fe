// length_sweep.cpp — timing one attention layer of every kind at growing n (see length_sweep.h).
#include "lab/length_sweep.h"

#include <spdlog/spdlog.h>
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "lab/bench.h"
#include "tensor/parallel.h"
#include "util/error.h"
#include "util/suggest.h"
#include "util/svg_plot.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// CPU seconds this process has used (all its threads; the sweep runs on one).
double cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// A series' attention: the kind it names, or for "window" scaled_dot restricted to [window, window].
AttentionConfig config_for(const std::string& series, const SweepOptions& options) {
  AttentionConfig config;
  if (series == "window") {
    config.kind = AttentionKind::scaled_dot;
    config.has_window = true;
    config.window_left = config.window_right = options.window;
  } else {
    config.kind = choice_named<AttentionKind>(series).value();   // run_length_sweep checked the name
  }
  return config;
}

// The numbers held by a kind's largest intermediate tensors at length n (forward values and their gradients),
// roughly: what decides whether a size fits in memory.
double estimated_bytes(const AttentionConfig& config, int64_t n, const SweepOptions& options) {
  const double N = static_cast<double>(n), d = static_cast<double>(options.d_model);
  const double h = static_cast<double>(options.heads);
  double numbers = 20 * N * d;                                           // projections, outputs, gradients
  const AttentionKind kind = config.kind;
  if (config.has_window) {
    numbers += 8 * h * N * static_cast<double>(config.window_left + config.window_right + 1);   // the band
  } else if (kind == AttentionKind::additive) {
    numbers += 6 * N * N * d;                                            // [h, n, n, d_k] sums, tanh, products
  } else if (kind == AttentionKind::scaled_dot || kind == AttentionKind::simplified || kind == AttentionKind::sagan) {
    numbers += 8 * h * N * N;                                            // [h, n, n]
  }
  return numbers * sizeof(real);
}

// Median CPU seconds of one forward + backward of `module` on x [1, n, d_model]: at least 3 repeats, and more until
// 0.3 s have been spent (at most 15), so that small sizes are not one noisy sample.
double time_layer(Attention& module, int64_t n, int64_t d_model, Generator& gen) {
  Tensor x = Tensor::randn({1, n, d_model}, gen);                          // [1, n, d_model]
  Tensor R = Tensor::randn({1, n, d_model}, gen);                          // [1, n, d_model]: loss = Σ out ⊙ R
  const AttentionMask mask = make_length_mask({n}, n, n, /*causal=*/false);
  std::vector<double> seconds;
  double spent = 0;
  for (int repeat = 0; repeat < 15 && (repeat < 3 || spent < 0.3); ++repeat) {
    x.set_requires_grad(true);
    x.zero_grad();
    module.zero_grad();
    const double start = cpu_seconds();
    {
      ForwardContext ctx;
      Tensor out = module.forward(x, x, mask, ctx);                        // [1, n, d_model]
      sum(mul(out, R)).backward();
    }
    const double s = cpu_seconds() - start;
    seconds.push_back(s);
    spent += s;
  }
  return median(seconds);
}

std::string format_ms(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, seconds < 0.01 ? "%.3f" : seconds < 1 ? "%.2f" : "%.0f", 1e3 * seconds);
  return text;
}

}  // namespace

std::vector<std::string> sweep_kinds() {
  std::vector<std::string> kinds = choice_names(AttentionKind{});
  kinds.push_back("window");
  return kinds;
}

double loglog_slope(const std::vector<double>& x, const std::vector<double>& y, size_t points) {
  const size_t count = std::min(points, x.size());
  if (count < 2) return 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t k = x.size() - count; k < x.size(); ++k) {
    const double lx = std::log(x[k]), ly = std::log(y[k]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  const double c = static_cast<double>(count);
  return (c * sxy - sx * sy) / (c * sxx - sx * sx);
}

std::vector<SweepSeries> run_length_sweep(const SweepOptions& options) {
  const std::vector<std::string> known = sweep_kinds();
  const std::vector<std::string> kinds = options.kinds.empty() ? known : options.kinds;
  for (const std::string& kind : kinds) {
    if (std::find(known.begin(), known.end(), kind) == known.end()) {
      const std::string closest = closest_match(kind, known);
      throw Error("bench --sweep-length: unknown kind '" + kind + "'" +
                  (closest.empty() ? std::string() : " (did you mean '" + closest + "'?)") + "; the kinds are " +
                  join(known));
    }
  }
  if (options.min_length < 1 || options.max_length < options.min_length) {
    throw Error("bench --sweep-length: the lengths must satisfy 1 ≤ min ≤ max");
  }

  use_threads(1);
  std::vector<SweepSeries> results;
  for (const std::string& kind : kinds) {
    SweepSeries series;
    series.kind = kind;
    Generator init(1), gen(2);
    const AttentionConfig config = config_for(kind, options);
    std::unique_ptr<Attention> module = make_attention(config, AttentionUse::encoder_self, options.d_model,
                                                       options.heads, /*dropout=*/0, init);
    for (int64_t n = options.min_length; n <= options.max_length; n *= 2) {
      if (estimated_bytes(config, n, options) > options.max_bytes) {
        char why[96];
        std::snprintf(why, sizeof why, "n ≥ %lld skipped: about %.1f GiB of intermediate tensors",
                      static_cast<long long>(n), estimated_bytes(config, n, options) / (1024.0 * 1024 * 1024));
        series.stopped = why;
        break;
      }
      const double seconds = time_layer(*module, n, options.d_model, gen);
      series.lengths.push_back(n);
      series.seconds.push_back(seconds);
      spdlog::info("sweep: {} n = {}: {} ms", kind, n, format_ms(seconds));
      if (seconds > options.max_seconds && n * 2 <= options.max_length) {
        series.stopped = "n ≥ " + std::to_string(n * 2) + " skipped: n = " + std::to_string(n) + " already took " +
                         format_ms(seconds) + " ms";
        break;
      }
    }
    std::vector<double> lengths(series.lengths.begin(), series.lengths.end());
    series.exponent = loglog_slope(lengths, series.seconds, 4);
    results.push_back(std::move(series));
  }
  return results;
}

std::string sweep_markdown(const std::vector<SweepSeries>& series, const SweepOptions& options) {
  std::vector<int64_t> lengths;
  for (int64_t n = options.min_length; n <= options.max_length; n *= 2) lengths.push_back(n);
  std::string md = "| n |";
  std::string rule = "|---:|";
  for (const SweepSeries& s : series) {
    md += " " + s.kind + " |";
    rule += "---:|";
  }
  md += "\n" + rule + "\n";
  for (int64_t n : lengths) {
    md += "| " + std::to_string(n) + " |";
    for (const SweepSeries& s : series) {
      auto at = std::find(s.lengths.begin(), s.lengths.end(), n);
      md += " " + (at == s.lengths.end() ? std::string("—") : format_ms(s.seconds[size_t(at - s.lengths.begin())])) + " |";
    }
    md += "\n";
  }
  md += "| growth exponent |";
  for (const SweepSeries& s : series) {
    char text[16];
    std::snprintf(text, sizeof text, " %.2f |", s.exponent);
    md += text;
  }
  md += "\n\nCPU milliseconds (one thread) for one forward + backward of one encoder self-attention layer (d_model " +
        std::to_string(options.d_model) + ", " + std::to_string(options.heads) + " heads, batch 1); `window` is " +
        "scaled_dot with a window of " + std::to_string(options.window) + " keys on each side. The growth exponent "
        "is the least-squares slope of log(time) against log(n) over each kind's largest four sizes (1 = linear, "
        "2 = quadratic).\n";
  for (const SweepSeries& s : series) {
    if (!s.stopped.empty()) md += "\n- " + s.kind + ": " + s.stopped;
  }
  md += "\n";
  return md;
}

std::string sweep_svg(const std::vector<SweepSeries>& series, const SweepOptions& options) {
  LogLogPlot plot;
  plot.title = "One attention layer, forward + backward (d_model " + std::to_string(options.d_model) + ", batch 1)";
  plot.x_label = "sentence length n (tokens)";
  plot.y_label = "time (ms)";
  double anchor_ms = 0;   // the reference slopes start where the first kind starts
  for (const SweepSeries& s : series) {
    if (s.lengths.empty()) continue;
    PlotSeries line;
    char name[64];
    std::snprintf(name, sizeof name, "%s (n^%.2f)", s.kind.c_str(), s.exponent);
    line.name = name;
    for (size_t k = 0; k < s.lengths.size(); ++k) {
      line.x.push_back(static_cast<double>(s.lengths[k]));
      line.y.push_back(1e3 * s.seconds[k]);
    }
    if (anchor_ms == 0) anchor_ms = line.y.front();
    plot.series.push_back(std::move(line));
  }
  if (plot.series.empty()) throw Error("bench --sweep-length: nothing was measured, so there is nothing to plot");
  const double n0 = static_cast<double>(options.min_length), n1 = static_cast<double>(options.max_length);
  plot.series.push_back({"reference ∝ n", {n0, n1}, {anchor_ms, anchor_ms * (n1 / n0)}, true});
  plot.series.push_back({"reference ∝ n²", {n0, n1}, {anchor_ms, anchor_ms * (n1 / n0) * (n1 / n0)}, true});
  return loglog_svg(plot);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
