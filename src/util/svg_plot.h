// svg_plot.h — a small log–log line plot written as SVG text, with no library.
//
// An SVG file is XML that a browser draws: <line>, <polyline>, <circle> and <text> elements at pixel positions.
// On log axes a value v sits at  pixel = left + (log v − log v_min) / (log v_max − log v_min) · width,  so a
// power law y = c · xᵏ is a straight line of slope k — which is why growth curves are drawn this way: an O(n)
// curve runs parallel to the reference line "n", an O(n²) one to "n²".
// Axes get a tick at every power of 2 (x) or of 10 (y) inside the data's range, grid lines, labels and a legend.
// With log_x = false the x axis is linear instead (x ≥ 0, from 0, ticks at 5 even steps): y against a step count.
#pragma once

#include <string>
#include <vector>

namespace attnlab {

struct PlotSeries {
  std::string name;            // the legend's text
  std::vector<double> x, y;    // points, all > 0
  bool reference = false;      // a reference slope: dashed grey, no markers
};

struct LogLogPlot {
  std::string title, x_label, y_label;
  std::vector<PlotSeries> series;
  int width = 720, height = 480;
  bool log_x = true;           // false: a linear x axis from 0
};

// The plot as a complete SVG document. Throws attnlab::Error for a point ≤ 0 on a log axis (it has no logarithm),
// x < 0 on a linear one, or no points.
std::string loglog_svg(const LogLogPlot& plot);

}  // namespace attnlab
