// svg_plot.cpp — the log–log SVG plot (see svg_plot.h).
#include "util/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "util/error.h"

namespace attnlab {

namespace {

// Distinguishable colours (the Okabe–Ito palette, readable with colour blindness), then they repeat.
const char* const colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
                               "#F0E442"};

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

// A tick label: 32, 2048, 0.01, 1000 — short and exact for powers of 2 and 10.
std::string tick_label(double v) {
  char text[32];
  if (v >= 1) std::snprintf(text, sizeof text, "%.0f", v);
  else std::snprintf(text, sizeof text, "%g", v);
  return text;
}

// The smallest and largest x and y over every series' points; attnlab::Error for a point a log axis cannot show
// (≤ 0), or for no points at all.
struct DataRange {
  double x_min = std::numeric_limits<double>::infinity(), x_max = 0, y_min = x_min, y_max = 0;
};

DataRange data_range(const LogLogPlot& plot) {
  DataRange range;
  for (const PlotSeries& s : plot.series) {
    for (size_t k = 0; k < s.x.size(); ++k) {
      if (!(plot.log_x ? s.x[k] > 0 : s.x[k] >= 0) || !(s.y[k] > 0)) {
        throw Error("loglog_svg: series '" + s.name + "' has a point ≤ 0, which a log axis cannot show");
      }
      range.x_min = std::min(range.x_min, s.x[k]);
      range.x_max = std::max(range.x_max, s.x[k]);
      range.y_min = std::min(range.y_min, s.y[k]);
      range.y_max = std::max(range.y_max, s.y[k]);
    }
  }
  if (range.x_min == std::numeric_limits<double>::infinity()) throw Error("loglog_svg: nothing to plot");
  return range;
}

}  // namespace

std::string loglog_svg(const LogLogPlot& plot) {
  const DataRange range = data_range(plot);
  const double x_min = range.x_min, x_max = range.x_max, y_min = range.y_min, y_max = range.y_max;
  // Whole powers around the data, so that the axes start and end at a labelled tick.
  const double lx0 = plot.log_x ? std::floor(std::log2(x_min)) : 0;
  const double lx1 = plot.log_x ? std::max(std::ceil(std::log2(x_max)), lx0 + 1) : 5;   // linear: 5 steps
  const double ly0 = std::floor(std::log10(y_min)), ly1 = std::max(std::ceil(std::log10(y_max)), ly0 + 1);

  const double left = 70, right = 190, top = 40, bottom = 55;     // margins; the legend sits on the right
  const double w = plot.width - left - right, h = plot.height - top - bottom;
  const double x_end = x_max > 0 ? x_max : 1;                      // a linear axis runs from 0 to x_end
  auto px = [&](double x) {
    return plot.log_x ? left + (std::log2(x) - lx0) / (lx1 - lx0) * w : left + x / x_end * w;
  };
  auto py = [&](double y) { return top + h - (std::log10(y) - ly0) / (ly1 - ly0) * h; };

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(plot.width) +
                    "\" height=\"" + std::to_string(plot.height) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + number(left + w / 2) + "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" +
         escape(plot.title) + "</text>\n";
  // Grid and ticks: x at powers of 2 (linear: at fifths of the range), y at powers of 10.
  for (double e = lx0; e <= lx1; ++e) {
    const double tick = plot.log_x ? std::exp2(e) : x_end * e / 5;
    const double x = px(tick);
    svg += "<line x1=\"" + number(x) + "\" y1=\"" + number(top) + "\" x2=\"" + number(x) + "\" y2=\"" +
           number(top + h) + "\" stroke=\"#e5e5e5\"/>\n";
    svg += "<text x=\"" + number(x) + "\" y=\"" + number(top + h + 18) + "\" text-anchor=\"middle\">" +
           tick_label(tick) + "</text>\n";
  }
  for (double e = ly0; e <= ly1; ++e) {
    const double y = py(std::pow(10.0, e));
    svg += "<line x1=\"" + number(left) + "\" y1=\"" + number(y) + "\" x2=\"" + number(left + w) + "\" y2=\"" +
           number(y) + "\" stroke=\"#e5e5e5\"/>\n";
    svg += "<text x=\"" + number(left - 8) + "\" y=\"" + number(y + 4) + "\" text-anchor=\"end\">" +
           tick_label(std::pow(10.0, e)) + "</text>\n";
  }
  svg += "<rect x=\"" + number(left) + "\" y=\"" + number(top) + "\" width=\"" + number(w) + "\" height=\"" +
         number(h) + "\" fill=\"none\" stroke=\"black\"/>\n";
  svg += "<text x=\"" + number(left + w / 2) + "\" y=\"" + number(top + h + 40) + "\" text-anchor=\"middle\">" +
         escape(plot.x_label) + "</text>\n";
  svg += "<text transform=\"translate(18 " + number(top + h / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
         escape(plot.y_label) + "</text>\n";

  // The series, clipped to the plot area (a reference line may run past it), and the legend.
  svg += "<clipPath id=\"area\"><rect x=\"" + number(left) + "\" y=\"" + number(top) + "\" width=\"" + number(w) +
         "\" height=\"" + number(h) + "\"/></clipPath>\n";
  int colour = 0;
  double legend_y = top + 10;
  for (const PlotSeries& s : plot.series) {
    const std::string stroke = s.reference ? "#888888" : colours[colour++ % (sizeof colours / sizeof *colours)];
    const std::string dash = s.reference ? " stroke-dasharray=\"6 4\"" : "";
    std::string points;
    for (size_t k = 0; k < s.x.size(); ++k) points += number(px(s.x[k])) + "," + number(py(s.y[k])) + " ";
    svg += "<g clip-path=\"url(#area)\"><polyline fill=\"none\" stroke=\"" + stroke + "\" stroke-width=\"2\"" + dash +
           " points=\"" + points + "\"/>";
    if (!s.reference) {
      for (size_t k = 0; k < s.x.size(); ++k) {
        svg += "<circle cx=\"" + number(px(s.x[k])) + "\" cy=\"" + number(py(s.y[k])) + "\" r=\"3\" fill=\"" +
               stroke + "\"/>";
      }
    }
    svg += "</g>\n";
    const double lx = left + w + 15;
    svg += "<line x1=\"" + number(lx) + "\" y1=\"" + number(legend_y) + "\" x2=\"" + number(lx + 24) + "\" y2=\"" +
           number(legend_y) + "\" stroke=\"" + stroke + "\" stroke-width=\"2\"" + dash + "/>\n";
    svg += "<text x=\"" + number(lx + 30) + "\" y=\"" + number(legend_y + 4) + "\">" + escape(s.name) + "</text>\n";
    legend_y += 18;
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace attnlab
