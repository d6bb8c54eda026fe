// svg.cpp — heatmaps and line charts written as SVG text (see svg.h for the picture each one draws).
#include "inspect/pages/svg.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>

#include "util/utf8.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// Pixels a label needs at font-size 11 px: about 6.5 px per character (code point, not byte: "é" is 2 bytes).
double text_width(std::string_view text) {
  size_t characters = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t length = decode_utf8(text, at).length;
    at += length == 0 ? 1 : length;
    ++characters;
  }
  return 6.5 * static_cast<double>(characters);
}

std::string number(double value) {  // coordinates: one decimal is plenty
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

std::string svg_open(double width, double height, bool standalone, const std::string& extra_attributes) {
  std::string out;
  if (standalone) out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(width) + "\" height=\"" + number(height) +
         "\" viewBox=\"0 0 " + number(width) + " " + number(height) + "\" font-family=\"sans-serif\"" +
         extra_attributes + ">\n";
  return out;
}

std::string text_element(double x, double y, std::string_view text, const std::string& attributes = "") {
  return "<text x=\"" + number(x) + "\" y=\"" + number(y) + "\"" + attributes + ">" + xml_escape(text) + "</text>\n";
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string heat_colour(double weight) {
  // ColorBrewer's "Blues", five stops; linear interpolation between neighbours.
  static constexpr std::array<std::array<double, 3>, 5> stops = {{
      {247, 251, 255}, {198, 219, 239}, {107, 174, 214}, {33, 113, 181}, {8, 48, 107}}};
  const double w = std::isfinite(weight) ? std::clamp(weight, 0.0, 1.0) : 0.0;
  const double position = w * (stops.size() - 1);                     // 0 … 4
  const size_t lower = std::min<size_t>(static_cast<size_t>(position), stops.size() - 2);
  const double fraction = position - static_cast<double>(lower);
  char out[8];
  int channel[3];
  for (int c = 0; c < 3; ++c) {
    channel[c] = static_cast<int>(std::lround(stops[lower][c] + fraction * (stops[lower + 1][c] - stops[lower][c])));
  }
  std::snprintf(out, sizeof out, "#%02x%02x%02x", channel[0], channel[1], channel[2]);
  return out;
}

// Layout, left to right: row-axis name (rotated), row labels, the grid, the legend. Top to bottom: title,
// column labels (rotated −60°, reading up and to the right from the column they name), the grid, the
// column-axis name.
std::string heatmap_svg(const Heatmap& map, const HeatmapStyle& style) {
  const size_t rows = map.row_labels.size(), columns = map.column_labels.size();
  const double cell = style.cell;
  double longest_row = 0, longest_column = 0;
  for (const auto& label : map.row_labels) longest_row = std::max(longest_row, text_width(label));
  for (const auto& label : map.column_labels) longest_column = std::max(longest_column, text_width(label));
  const double axis_band = 18;                                    // the rotated row-axis name
  const double grid_x = axis_band + longest_row + 8;
  const double title_band = map.title.empty() ? 4 : 26;
  const double grid_y = title_band + longest_column * std::sin(60 * M_PI / 180) + 10;
  const double grid_w = cell * static_cast<double>(columns), grid_h = cell * static_cast<double>(rows);
  const double legend_x = grid_x + grid_w + 16, legend_h = std::max(60.0, std::min(grid_h, 160.0));
  // The title is bold at 13 px, not 11 px: 13/11 of text_width and a little more for bold, so it is never cut.
  const double width = std::max(legend_x + 50, text_width(map.title) * 13.0 / 11.0 * 1.15 + 12);
  const double height = grid_y + std::max(grid_h, legend_h) + 30;

  std::string extra = " class=\"heatmap\"";
  if (!style.data_map.empty()) extra += " data-map=\"" + xml_escape(style.data_map) + "\"";
  std::string out = svg_open(width, height, style.standalone, extra);
  if (!map.title.empty()) out += text_element(6, 16, map.title, " font-size=\"13\" font-weight=\"bold\"");
  // Row axis name, rotated to run up the left edge.
  out += "<text transform=\"translate(12," + number(grid_y + grid_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555\">" + xml_escape(map.row_axis) +
         "</text>\n";
  for (size_t i = 0; i < rows; ++i) {
    out += text_element(grid_x - 4, grid_y + cell * (static_cast<double>(i) + 0.5) + 4, map.row_labels[i],
                        " text-anchor=\"end\" font-size=\"11\"");
  }
  for (size_t j = 0; j < columns; ++j) {
    const double x = grid_x + cell * (static_cast<double>(j) + 0.5) + 3, y = grid_y - 4;
    out += "<text transform=\"translate(" + number(x) + "," + number(y) + ") rotate(-60)\" font-size=\"11\">" +
           xml_escape(map.column_labels[j]) + "</text>\n";
  }
  // The cells.
  out += "<g class=\"cells\">\n";
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = 0; j < columns; ++j) {
      const double w = map.weights[i * columns + j];
      out += "<rect x=\"" + number(grid_x + cell * static_cast<double>(j)) + "\" y=\"" +
             number(grid_y + cell * static_cast<double>(i)) + "\" width=\"" + number(cell) + "\" height=\"" +
             number(cell) + "\" fill=\"" + heat_colour(w) + "\"";
      if (!style.data_map.empty()) out += " data-i=\"" + std::to_string(i) + "\" data-j=\"" + std::to_string(j) + "\"";
      if (style.cell_titles) {
        char weight[32];
        std::snprintf(weight, sizeof weight, "%.3f", w);
        out += "><title>" + xml_escape(map.row_labels[i]) + " → " + xml_escape(map.column_labels[j]) + ": " +
               weight + "</title></rect>\n";
      } else {
        out += "/>\n";
      }
    }
  }
  out += "</g>\n";
  for (size_t i = 0; i < map.marked.size() && i < rows; ++i) {             // a marker on top, not a replacement
    if (map.marked[i] < 0) continue;
    out += "<rect class=\"marked\" x=\"" + number(grid_x + cell * static_cast<double>(map.marked[i]) + 1.5) +
           "\" y=\"" + number(grid_y + cell * static_cast<double>(i) + 1.5) + "\" width=\"" + number(cell - 3) +
           "\" height=\"" + number(cell - 3) + "\" fill=\"none\" stroke=\"#1a9850\" stroke-width=\"2\"/>\n";
  }
  out += "<rect x=\"" + number(grid_x) + "\" y=\"" + number(grid_y) + "\" width=\"" + number(grid_w) +
         "\" height=\"" + number(grid_h) + "\" fill=\"none\" stroke=\"#888\" stroke-width=\"0.5\"/>\n";
  out += text_element(grid_x + grid_w / 2, grid_y + grid_h + 20, map.column_axis,
                      " text-anchor=\"middle\" font-size=\"10\" fill=\"#555\"");
  // Legend: the colour scale from 1 (top) to 0 (bottom), in 20 bands (plain rects: no gradient ids that could
  // clash when many maps sit inline in one page).
  const int bands = 20;
  for (int b = 0; b < bands; ++b) {
    const double weight = 1.0 - (b + 0.5) / bands;
    out += "<rect x=\"" + number(legend_x) + "\" y=\"" + number(grid_y + legend_h * b / bands) +
           "\" width=\"10\" height=\"" + number(legend_h / bands + 0.5) + "\" fill=\"" + heat_colour(weight) + "\"/>\n";
  }
  out += "<rect x=\"" + number(legend_x) + "\" y=\"" + number(grid_y) + "\" width=\"10\" height=\"" +
         number(legend_h) + "\" fill=\"none\" stroke=\"#888\" stroke-width=\"0.5\"/>\n";
  for (double tick : {1.0, 0.5, 0.0}) {
    out += text_element(legend_x + 14, grid_y + legend_h * (1 - tick) + 4, tick_label(tick), " font-size=\"10\"");
  }
  out += "</svg>\n";
  return out;
}

std::vector<double> nice_ticks(double lo, double hi, int count) {
  if (!(hi > lo)) return {lo};
  const double rough = (hi - lo) / std::max(1, count);
  const double power = std::pow(10.0, std::floor(std::log10(rough)));
  double step = power;
  for (double factor : {1.0, 2.0, 5.0, 10.0}) {
    step = factor * power;
    if (step >= rough) break;
  }
  std::vector<double> ticks;
  for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; ++k) ticks.push_back(k * step);
  return ticks;
}

std::string tick_label(double value) {
  char text[32];
  const double magnitude = std::abs(value);
  if (value == 0) return "0";
  if (magnitude >= 1e5 || magnitude < 1e-3) {
    std::snprintf(text, sizeof text, "%.0e", value);
  } else {
    std::snprintf(text, sizeof text, "%.4g", value);
  }
  return text;
}

namespace {

// The ticks of a log-scale axis from 10^lo to 10^hi, as their log10: powers of ten, and 2 and 5 times them when the
// range spans less than two decades; a range too narrow for two such ticks gets round values inside it instead.
std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> ticks;
  const bool fine = hi - lo < 2;
  for (double decade = std::floor(lo); decade <= std::ceil(hi); ++decade) {
    for (double factor : {1.0, 2.0, 5.0}) {
      if (factor != 1.0 && !fine) continue;
      const double t = decade + std::log10(factor);
      if (t >= lo - 1e-9 && t <= hi + 1e-9) ticks.push_back(t);
    }
  }
  if (ticks.size() >= 2) return ticks;
  ticks.clear();
  for (double t : nice_ticks(std::pow(10.0, lo), std::pow(10.0, hi), 4)) {
    if (t > 0) ticks.push_back(std::log10(t));
  }
  return ticks;
}

// One series' points (pixels) as a line, or as a dot when there is one point: a one-point polyline draws nothing.
std::string series_svg(const std::vector<std::pair<double, double>>& points, const std::string& colour) {
  if (points.size() == 1) {
    return "<circle cx=\"" + number(points[0].first) + "\" cy=\"" + number(points[0].second) + "\" r=\"3\" fill=\"" +
           colour + "\"/>\n";
  }
  std::string coordinates;
  for (const auto& [x, y] : points) coordinates += number(x) + "," + number(y) + " ";
  return "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"1.8\" points=\"" + coordinates + "\"/>\n";
}

}  // namespace

std::string line_chart_svg(const LineChart& chart) {
  const double left = 60, right = 16, top = 28, bottom = 44;
  const double plot_w = chart.width - left - right, plot_h = chart.height - top - bottom;
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  auto usable = [&](const std::pair<double, double>& p) {
    return std::isfinite(p.first) && std::isfinite(p.second) && (!chart.log_y || p.second > 0);
  };
  for (const auto& s : chart.series) {
    for (const auto& p : s.points) {
      if (!usable(p)) continue;
      x_lo = std::min(x_lo, p.first), x_hi = std::max(x_hi, p.first);
      const double y = chart.log_y ? std::log10(p.second) : p.second;
      y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
    }
  }
  std::string out = svg_open(chart.width, chart.height, false, " class=\"chart\"");
  out += text_element(left, 16, chart.title, " font-size=\"13\" font-weight=\"bold\"");
  if (!std::isfinite(x_lo)) {
    out += text_element(chart.width / 2, chart.height / 2, "no data", " text-anchor=\"middle\" fill=\"#888\"");
    return out + "</svg>\n";
  }
  if (x_hi == x_lo) x_lo -= 1, x_hi += 1;
  if (y_hi == y_lo) {
    const double margin = chart.log_y ? 0.5 : std::max(1e-3, std::abs(y_lo) * 0.1);
    y_lo -= margin, y_hi += margin;
  }
  if (!chart.log_y && y_lo > 0 && y_lo < 0.5 * y_hi) y_lo = 0;   // a positive curve reads best from 0
  auto px = [&](double x) { return left + (x - x_lo) / (x_hi - x_lo) * plot_w; };
  auto py = [&](double y) { return top + (1 - (y - y_lo) / (y_hi - y_lo)) * plot_h; };

  // Grid lines and tick labels.
  for (double t : nice_ticks(x_lo, x_hi, 6)) {
    out += "<line x1=\"" + number(px(t)) + "\" y1=\"" + number(top) + "\" x2=\"" + number(px(t)) + "\" y2=\"" +
           number(top + plot_h) + "\" stroke=\"#eee\"/>\n";
    out += text_element(px(t), top + plot_h + 14, tick_label(t), " text-anchor=\"middle\" font-size=\"10\"");
  }
  for (double t : chart.log_y ? log_ticks(y_lo, y_hi) : nice_ticks(y_lo, y_hi, 5)) {
    out += "<line x1=\"" + number(left) + "\" y1=\"" + number(py(t)) + "\" x2=\"" + number(left + plot_w) +
           "\" y2=\"" + number(py(t)) + "\" stroke=\"#eee\"/>\n";
    out += text_element(left - 4, py(t) + 3, tick_label(chart.log_y ? std::pow(10.0, t) : t),
                        " text-anchor=\"end\" font-size=\"10\"");
  }
  out += "<rect x=\"" + number(left) + "\" y=\"" + number(top) + "\" width=\"" + number(plot_w) + "\" height=\"" +
         number(plot_h) + "\" fill=\"none\" stroke=\"#888\"/>\n";
  out += text_element(left + plot_w / 2, chart.height - 8, chart.x_label, " text-anchor=\"middle\" font-size=\"11\"");
  out += "<text transform=\"translate(12," + number(top + plot_h / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" font-size=\"11\">" +
         xml_escape(chart.y_label + (chart.log_y ? " (log scale)" : "")) + "</text>\n";

  // The series, and a legend above the plot's top-right corner (right to left), where no line can run.
  double legend_right = left + plot_w;
  for (const auto& s : chart.series) {
    std::vector<std::pair<double, double>> points;  // the usable points, in the plot's pixels
    for (const auto& p : s.points) {
      if (usable(p)) points.emplace_back(px(p.first), py(chart.log_y ? std::log10(p.second) : p.second));
    }
    if (points.empty()) continue;
    out += series_svg(points, s.colour);
    const double legend_x = legend_right - text_width(s.name) - 20, legend_y = top - 8;
    out += "<line x1=\"" + number(legend_x) + "\" y1=\"" + number(legend_y - 4) + "\" x2=\"" + number(legend_x + 16) +
           "\" y2=\"" + number(legend_y - 4) + "\" stroke=\"" + s.colour + "\" stroke-width=\"2\"/>\n";
    out += text_element(legend_x + 20, legend_y, s.name, " font-size=\"11\"");
    legend_right = legend_x - 12;
  }
  out += "</svg>\n";
  return out;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
