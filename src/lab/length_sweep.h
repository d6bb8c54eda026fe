// length_sweep.h — how does each kind of attention grow with the sentence length n? (`attnlab bench --sweep-length`)
//
// One attention layer as encoder self-attention (d_model 64, 4 heads, batch 1, no padding, no dropout) is timed
// forward + backward — out = Attention(x, x), loss = Σ out ⊙ R for a fixed random R, loss.backward() — at
// n = 32, 64, …, 2048, for every kind: scaled_dot, additive, simplified, sagan, external, linear, and scaled_dot
// with a window of 16 keys on each side ("window"). The time of one size is the median of several repeats, on one
// thread, measured as the process's CPU time: on a busy machine other processes taking turns on the core stretch
// the wall-clock time but not the CPU time (on an idle machine the two agree).
//
// Softmax kinds form the n × n matrix of scores: their time grows like n² (and additive attention's like n²·d,
// with an [n, n, d] tensor in the middle). External attention (n × S scores against S = 64 memory slots), linear
// attention (φ(K)ᵀV is d_k × d_k) and the window (an n × 33 band) grow like n. The growth exponent of a kind is
// the slope of log(time) against log(n), fitted by least squares over its largest four sizes (at small n fixed
// costs — projections, allocation — hide the asymptotic growth).
//
// Sizes a kind would take too much memory for are skipped and said so: the estimate is the bytes of its largest
// intermediate tensors (softmax kinds ~8 · h · n² numbers, additive ~6 · n² · d), against 1 GiB. A kind whose one
// forward + backward takes more than 10 s is not run at larger sizes either.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct SweepOptions {
  std::vector<std::string> kinds;     // empty: every kind, "window" included
  int64_t min_length = 32, max_length = 2048;   // n doubles from min to max
  int64_t d_model = 64, heads = 4;
  int64_t window = 16;                // the "window" kind: [window, window]
  double max_seconds = 10;            // a kind stops growing after a measurement this slow
  double max_bytes = 1024.0 * 1024 * 1024;      // the memory estimate a size may not exceed
};

struct SweepSeries {
  std::string kind;
  std::vector<int64_t> lengths;       // the sizes measured
  std::vector<double> seconds;        // median forward + backward time at each
  double exponent = 0;                // fitted growth: time ∝ n^exponent
  std::string stopped;                // empty, or why larger sizes were skipped
};

// The kinds the sweep knows: attention_kinds() plus "window".
std::vector<std::string> sweep_kinds();

// Runs the sweep. Throws attnlab::Error for an unknown kind (naming the known ones) or bad sizes.
std::vector<SweepSeries> run_length_sweep(const SweepOptions& options);

// Least-squares slope of log(y) against log(x) over the last `points` points (all when fewer).
double loglog_slope(const std::vector<double>& x, const std::vector<double>& y, size_t points);

// The results as a Markdown table (milliseconds; one row per n, one column per kind, the exponent last) followed
// by the list of skipped sizes and why.
std::string sweep_markdown(const std::vector<SweepSeries>& series, const SweepOptions& options);

// The results as an SVG log–log plot with reference slopes n and n² (see util/svg_plot.h).
std::string sweep_svg(const std::vector<SweepSeries>& series, const SweepOptions& options);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
