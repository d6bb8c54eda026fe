// svg.h — drawing the pictures of chapter "Looking inside": heatmaps and line charts as SVG text.
//
// SVG is XML: a picture is a list of shapes with coordinates (x right, y down, in pixels), which a browser draws.
// attnlab writes it by hand — no plotting library — so each picture is a page of plain string building:
//   heatmap:     one <rect> per (query, key) cell, filled by the weight's colour on a white → dark blue scale
//                from 0 to 1 (the same scale on every map, so maps can be compared), token labels on both axes,
//                and a colour-scale legend.
//   line chart:  one <polyline> per series, axes with "nice" ticks (1, 2, 5 · 10^k), optional log-scale y.
// Token labels come from the tokenizers and may hold anything (French accents, "<s>", "&"): every piece of text
// goes through xml_escape().
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor/real.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// & < > " ' become entities, so any text can sit in an element or an attribute. UTF-8 passes through unchanged.
std::string xml_escape(std::string_view text);

// "#rrggbb" of a weight on the heatmap scale (clamped to [0, 1]): 0 white, 1 dark blue.
std::string heat_colour(double weight);

struct Heatmap {
  std::string title;                        // e.g. "cross-attention · layer 1 · head 0"; empty: none
  std::vector<std::string> row_labels;      // one per query (rows, top to bottom)
  std::vector<std::string> column_labels;   // one per key (columns, left to right)
  std::string row_axis, column_axis;        // what the rows and columns are, e.g. "French (query)"
  std::vector<double> weights;              // rows × columns, row-major, each in [0, 1]
  std::vector<int64_t> marked;              // empty, or per row the column outlined (hard attention's chosen
                                            // key, drawn on top of its distribution); −1: none in that row
};

struct HeatmapStyle {
  double cell = 22;             // pixels per cell side
  bool standalone = true;       // true: a file of its own (XML declaration, xmlns); false: inline in HTML
  bool cell_titles = true;      // a <title> per cell: the browser's own hover text (query, key, weight)
  std::string data_map;         // when set: data-map="…" on the <svg> and data-i / data-j on every cell (for JS)
};

std::string heatmap_svg(const Heatmap& map, const HeatmapStyle& style);

struct ChartSeries {
  std::string name;                              // shown in the legend
  std::string colour;                            // "#rrggbb"
  std::vector<std::pair<double, double>> points; // (x, y), in x order
};

struct LineChart {
  std::string title, x_label, y_label;
  std::vector<ChartSeries> series;
  bool log_y = false;   // logarithmic y axis (every y must be > 0; other points are left out)
  double width = 640, height = 300;
};

// An inline <svg> (for HTML pages). A chart with no points says so in its middle instead of drawing axes.
std::string line_chart_svg(const LineChart& chart);

// Tick positions between lo and hi: about `count` round numbers (1, 2 or 5 times a power of ten).
std::vector<double> nice_ticks(double lo, double hi, int count);

// A number as a short label: "0.5", "1200", "3e-04".
std::string tick_label(double value);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
