// course_figures.cpp — the pictures of the course (docs/course/figures/), drawn from the library's own numbers.
//
// The Annotated Transformer follows each idea with a small picture; these are attnlab's, one for each idea a
// learner should see before reading its equation:
//   positions.svg      the sinusoidal table P[t, i] (PositionalEncoding::sinusoidal_table, t = 0 … 49, d = 64) as
//                      waves, three pairs of dimensions (0, 1), (8, 9), (32, 33): each pair is a clock (sin, cos)
//                      with its own speed; low dimensions turn fast, high ones barely move in 50 positions.
//   positions_dot.svg  P Pᵀ (the matmul op), divided by P[0]·P[0] = d/2: how alike two positions' encodings are.
//                      A band along the diagonal: nearby positions look alike, and the likeness depends on t − t′
//                      only, so every stripe runs parallel to the diagonal.
//   masks.svg          the masks of one batch of two sentences of different lengths, as the model builds them
//                      (make_padding_mask, then AttentionMask::additive): the encoder's (padding hidden) and the
//                      decoder's (padding and later positions hidden), drawn as e^mask: 1 allowed, 0 for −∞.
//   schedule.svg       the noam learning rate (learning_rate()) against the step for d_model 512 with warm-ups
//                      1000, 4000 and 8000 (the Annotated Transformer's curves), and for the demo config's own
//                      d_model and warm-up (configs/toy-en-fr.yaml, read by load_config()).
// This file computes no number itself: it calls what the model calls and lays the results out; svg.h draws.
//
// The same bytes from every build: what the files print is rounded (coordinates to 0.1 px, colours to 8 bits per
// channel, P Pᵀ to 0.01 before it is coloured), so an AVX2 and an AVX-512 build write identical files, and ctest
// docs.figures_current can compare them byte for byte with docs/course/figures/ (tools/course.sh --update
// regenerates them).
//
//   usage: course_figures OUTDIR [--config configs/toy-en-fr.yaml]     (run from the top of the tree)
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "autograd/ops.h"
#include "inspect/pages/svg.h"
#include "model/masks.h"
#include "nn/embedding.h"
#include "run/config_io.h"
#include "train/schedule.h"
#include "util/error.h"
#include "util/files.h"

using namespace attnlab;

namespace {

// ---- Laying pictures out: a figure is a title, a caption and panels (svg.h's pictures) placed on a page ----

struct Panel {
  std::string svg;   // an inline <svg> of heatmap_svg (standalone = false) or line_chart_svg
  double x = 0, y = 0;
};

// The width="…" or height="…" of a picture's opening <svg> tag.
double size_of(const std::string& svg, const std::string& attribute) {
  const std::string key = " " + attribute + "=\"";
  const size_t at = svg.find(key);
  if (at == std::string::npos || at > svg.find('>')) throw Error("course_figures: a picture has no " + attribute);
  return std::stod(svg.substr(at + key.size()));
}

std::string pixels(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

// A standalone SVG file: a bold title, caption lines under it, then the panels, offset below the caption.
std::string figure(const std::string& title, const std::vector<std::string>& caption, const std::vector<Panel>& panels) {
  const double top = 30 + 15 * static_cast<double>(caption.size()) + 6;
  // Text widths estimated as svg.cpp does (about 0.55 em per character), so no caption line is cut off.
  double width = 8 + 0.62 * 15 * static_cast<double>(title.size()), height = 0;
  for (const std::string& line : caption) width = std::max(width, 16 + 0.55 * 12 * static_cast<double>(line.size()));
  for (const Panel& p : panels) {
    width = std::max(width, p.x + size_of(p.svg, "width"));
    height = std::max(height, top + p.y + size_of(p.svg, "height"));
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + pixels(width) + "\" height=\"" + pixels(height) +
         "\" viewBox=\"0 0 " + pixels(width) + " " + pixels(height) + "\" font-family=\"sans-serif\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";   // readable on a dark page too
  out += "<text x=\"8\" y=\"20\" font-size=\"15\" font-weight=\"bold\">" + xml_escape(title) + "</text>\n";
  for (size_t i = 0; i < caption.size(); ++i) {
    out += "<text x=\"8\" y=\"" + pixels(38 + 15 * static_cast<double>(i)) + "\" font-size=\"12\" fill=\"#333\">" +
           xml_escape(caption[i]) + "</text>\n";
  }
  for (const Panel& p : panels) {
    out += "<g transform=\"translate(" + pixels(p.x) + "," + pixels(top + p.y) + ")\">\n" + p.svg + "</g>\n";
  }
  return out + "</svg>\n";
}

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// ---- positions.svg and positions_dot.svg ----

constexpr int64_t positions = 50, position_d_model = 64;

std::string positions_svg(const Tensor& P) {                              // P [50, 64]
  const real* p = P.data();
  auto at = [&](int64_t t, int64_t i) { return static_cast<double>(p[t * position_d_model + i]); };
  std::vector<Panel> panels;
  double y = 0;
  for (int64_t first : {0, 8, 32}) {                                      // the pair (first, first + 1)
    // The clock's speed, read off the table: row 1 is (sin ω, cos ω), so ω = atan2(P[1, 2i], P[1, 2i+1]).
    const double period = 2 * M_PI / std::atan2(at(1, first), at(1, first + 1));
    LineChart chart;
    chart.title = "dimensions " + std::to_string(first) + ", " + std::to_string(first + 1) + ": one turn per " +
                  format("%.3g", period) + " positions";
    chart.x_label = "position t";
    chart.y_label = "P[t, i]";
    chart.width = 760, chart.height = 190;
    ChartSeries sine{"dimension " + std::to_string(first) + ": sin", "#1f77b4", {}};
    ChartSeries cosine{"dimension " + std::to_string(first + 1) + ": cos", "#ff7f0e", {}};
    for (int64_t t = 0; t < positions; ++t) {
      sine.points.emplace_back(static_cast<double>(t), at(t, first));
      cosine.points.emplace_back(static_cast<double>(t), at(t, first + 1));
    }
    chart.series = {cosine, sine};                                        // the legend is laid out right to left
    panels.push_back({line_chart_svg(chart), 0, y});
    y += chart.height + 6;
  }
  return figure("Sinusoidal positions: P[t, i] for t = 0 … 49, d_model = 64",
                {"Each pair of dimensions (sin, cos) is a clock with its own speed, 10000^(−2i/d) radians per position:",
                 "the first pairs turn fast, the last ones barely move within 50 positions. Together they give every",
                 "position its own pattern, and position t + k is position t with each clock turned a fixed angle."},
                panels);
}

std::string positions_dot_svg(const Tensor& P) {                          // P [50, 64]
  Tensor G = matmul(P, P, /*transpose_a=*/false, /*transpose_b=*/true);   // [50, 50]: G[t, t′] = P[t] · P[t′]
  const double diagonal = G.data()[0];                                    // P[0] · P[0] = d/2 (sin² + cos² = 1)
  Heatmap map;
  map.title = "P Pᵀ / (P[0] · P[0]): how alike the encodings of t and t′ are";
  map.row_axis = "position t";
  map.column_axis = "position t′";
  double lowest = 1;
  for (int64_t t = 0; t < positions; ++t) {
    const std::string label = t % 5 == 0 ? std::to_string(t) : "";
    map.row_labels.push_back(label);
    map.column_labels.push_back(label);
    for (int64_t u = 0; u < positions; ++u) {
      // Rounded to 0.01: every value lies at least 0.006 of a step (6·10⁻⁵) from a rounding boundary, far more than
      // float32 sums of 64 terms in another order can move it (about 10⁻⁷ after the division).
      const double similarity = std::round(G.data()[t * positions + u] / diagonal * 100) / 100;
      map.weights.push_back(similarity);
      lowest = std::min(lowest, similarity);
    }
  }
  HeatmapStyle style;
  style.cell = 10;
  style.standalone = false;
  style.cell_titles = false;
  return figure("Sinusoidal positions compared: P Pᵀ, t and t′ = 0 … 49, d_model = 64",
                {"1 on the diagonal; nearby positions look alike, and the likeness depends only on the distance t − t′,",
                 "so the pattern runs in stripes parallel to the diagonal. It never falls below " +
                     format("%.2f", lowest) + " here: the slow clocks",
                 "(high dimensions) hardly turn within 50 positions; they tell apart positions far longer than these."},
                {{heatmap_svg(map, style), 0, 0}});
}

// ---- masks.svg ----

// One batch of two sentence pairs, padded to the longest. The ids are made up (any id but pad_id is a real
// token: the masks look at nothing else); the words are only the pictures' labels.
struct Sentences {
  std::vector<std::vector<std::string>> words;   // per sentence, its real tokens
  int64_t length = 0;                            // the batch's time axis: the longest sentence
  TokenIds ids() const {
    TokenIds out{Shape({static_cast<int64_t>(words.size()), length}), {}};
    for (const auto& sentence : words)
      for (int64_t t = 0; t < length; ++t) out.values.push_back(t < static_cast<int64_t>(sentence.size()) ? 4 + t : pad_id);
    return out;
  }
  std::vector<std::string> labels(size_t b) const {
    std::vector<std::string> out = words[b];
    out.resize(static_cast<size_t>(length), "<pad>");
    return out;
  }
};

// Sentence b's [Tq, Tk] slice of the additive mask [B, 1, Tq, Tk], as e^mask: 1 where allowed (0), 0 where −∞.
Heatmap mask_map(const AttentionMask& mask, int64_t b, const std::string& title, const std::vector<std::string>& rows,
                 const std::vector<std::string>& columns, const std::string& axis) {
  const Tensor additive = mask.additive(AttentionConfig{});
  Heatmap map{title, rows, columns, "query: " + axis, "key: " + axis, {}, {}};
  const real* m = additive.data() + b * mask.query_len * mask.key_len;
  for (int64_t i = 0; i < mask.query_len * mask.key_len; ++i) map.weights.push_back(std::exp(static_cast<double>(m[i])));
  return map;
}

std::string masks_svg() {
  const Sentences source{{{"the", "cat", "sleeps", "."}, {"the", "old", "cat", "does", "not", "sleep", "."}}, 7};
  const Sentences target_in{{{"<s>", "le", "chat", "dort", "."}, {"<s>", "le", "vieux", "chat", "ne", "dort", "pas", "."}}, 8};
  const AttentionMask encoder = make_padding_mask(source.ids(), source.length, /*causal=*/false);
  const AttentionMask decoder = make_padding_mask(target_in.ids(), target_in.length, /*causal=*/true);
  HeatmapStyle style;
  style.cell = 20;
  style.standalone = false;
  style.cell_titles = false;
  std::vector<Panel> panels;
  double y = 0;
  for (int side = 0; side < 2; ++side) {
    const AttentionMask& mask = side == 0 ? encoder : decoder;
    const Sentences& sentences = side == 0 ? source : target_in;
    double x = 0, row_height = 0;
    for (int64_t b = 0; b < 2; ++b) {
      const std::string title = (side == 0 ? "encoder self-attention" : "decoder self-attention") +
                                std::string(" · sentence ") + std::to_string(b);
      const auto labels = sentences.labels(static_cast<size_t>(b));
      const std::string svg =
          heatmap_svg(mask_map(mask, b, title, labels, labels, side == 0 ? "source" : "target input"), style);
      panels.push_back({svg, x, y});
      x += size_of(svg, "width") + 30;
      row_height = std::max(row_height, size_of(svg, "height"));
    }
    y += row_height + 10;
  }
  return figure("The masks of one batch: two sentences of different lengths",
                {"As the model builds them (make_padding_mask, AttentionMask::additive), drawn as e^mask, the factor",
                 "each key's e^score gets in the softmax: dark = 1 (mask 0, the query may see the key), white = 0 (mask",
                 "−∞, hidden). Top: the encoder hides the shorter sentence's padding from every query. Bottom: the",
                 "decoder hides padding and every later position (causal: a lower triangle); cross-attention uses",
                 "the source's padding mask with the target's queries as rows."},
                panels);
}

// ---- schedule.svg ----

std::string schedule_svg(const RunConfig& toy, const std::string& toy_name) {
  struct Curve { std::string name; TrainConfig train; int64_t d_model; std::string colour; };
  std::vector<Curve> curves;
  const std::vector<std::string> colours = {"#1f77b4", "#ff7f0e", "#2ca02c"};
  for (size_t k = 0; k < 3; ++k) {
    TrainConfig train;                                                    // noam, lr = 1: the paper's schedule
    train.schedule = ScheduleKind::noam;
    train.lr = 1;
    train.warmup_steps = std::vector<int64_t>{1000, 4000, 8000}[k];
    curves.push_back({"d 512, w " + std::to_string(train.warmup_steps), train, 512, colours[k]});
  }
  const std::string toy_schedule = toy.train.schedule == ScheduleKind::noam
                                       ? "" : " (" + choice_names(ScheduleKind{})[static_cast<size_t>(toy.train.schedule)] + ")";
  curves.push_back({toy_name + ": d " + std::to_string(toy.model.d_model) + ", w " +
                        std::to_string(toy.train.warmup_steps) + toy_schedule,
                    toy.train, toy.model.d_model, "#d62728"});
  LineChart chart;
  chart.x_label = "step s (thousands)";
  chart.y_label = "learning rate";
  chart.width = 760, chart.height = 320;
  std::vector<std::string> peaks;
  for (const Curve& c : curves) {
    ChartSeries series{c.name, c.colour, {}};
    series.points.emplace_back(0.001, learning_rate(c.train, 1, c.d_model));   // the first step, then every 50th
    for (int64_t s = 50; s <= 20000; s += 50)
      series.points.emplace_back(s / 1000.0, learning_rate(c.train, static_cast<double>(s), c.d_model));
    chart.series.insert(chart.series.begin(), series);                   // the legend is laid out right to left
    const double w = static_cast<double>(std::max<int64_t>(1, c.train.warmup_steps));
    peaks.push_back(c.name + ": " + format("%.2g", learning_rate(c.train, w, c.d_model)));
  }
  return figure("The noam learning rate against the step (d = d_model, w = warm-up steps)",
                {"lr · d^−½ · min(s^−½, s · w^−³ᐟ²): a straight rise for w steps, the peak at s = w, then a fall as 1/√s.",
                 "A smaller model gets larger steps; a longer warm-up a lower, later peak. Peaks: " + peaks[0] + ";",
                 peaks[1] + "; " + peaks[2] + "; " + peaks[3] + "."},
                {{line_chart_svg(chart), 0, 0}});
}

int run(const std::string& out_dir, const std::string& config_path) {
  if (!std::filesystem::exists(config_path)) {
    throw Error("config file '" + config_path + "' not found: run course_figures from the top of the tree, or give "
                "--config PATH");
  }
  const RunConfig toy = load_config(config_path);
  const std::string toy_name = std::filesystem::path(config_path).stem().string();
  std::filesystem::create_directories(out_dir);
  const Tensor P = PositionalEncoding::sinusoidal_table(positions, position_d_model);   // [50, 64]
  const std::vector<std::pair<std::string, std::string>> files = {
      {"positions.svg", positions_svg(P)},
      {"positions_dot.svg", positions_dot_svg(P)},
      {"masks.svg", masks_svg()},
      {"schedule.svg", schedule_svg(toy, toy_name)},
  };
  for (const auto& [name, text] : files) {
    write_file_atomically(out_dir + "/" + name, text);
    std::cout << "wrote " << out_dir << "/" << name << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string usage =
      "usage: course_figures OUTDIR [--config configs/toy-en-fr.yaml]\n"
      "  writes positions.svg, positions_dot.svg, masks.svg and schedule.svg into OUTDIR (made if missing);\n"
      "  the config gives schedule.svg its own curve (its d_model and warm-up). Run from the top of the tree.\n"
      "  tools/course.sh --update writes them into docs/course/figures/.\n";
  std::string out_dir, config_path = "configs/toy-en-fr.yaml";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      return 0;
    } else if (arg == "--config" && i + 1 < argc) {
      config_path = argv[++i];
    } else if (!arg.empty() && arg[0] != '-' && out_dir.empty()) {
      out_dir = arg;
    } else {
      std::cerr << "course_figures: unexpected argument '" << arg << "'\n" << usage;
      return 2;
    }
  }
  if (out_dir.empty()) {
    std::cerr << "course_figures: no OUTDIR given\n" << usage;
    return 2;
  }
  try {
    return run(out_dir, config_path);
  } catch (const std::exception& e) {
    std::cerr << "course_figures: " << e.what() << "\n";
    return 1;
  }
}
