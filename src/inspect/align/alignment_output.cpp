// alignment_output.cpp — the report as JSON and SVG (alignment_output.h lists the fields and pictures).
#include "inspect/align/alignment_output.h"

#include <algorithm>
#include <array>

#include "inspect/pages/svg.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

nlohmann::json rates(const AlignmentCounts& counts) {
  return {{"aer", counts.aer()}, {"precision", counts.precision()}, {"recall", counts.recall()}};
}

nlohmann::json deletion_json(const DeletionSums& sums) {
  const bool measured = sums.words > 0;
  return {{"aopc", measured ? nlohmann::json(sums.aopc()) : nlohmann::json(nullptr)},
          {"deletion_curve", sums.curve()},
          {"deletion_words", sums.words}};
}

nlohmann::json method_json(const MethodScore& score) {
  nlohmann::json out{{"name", score.name}, {"family", score.family}, {"sentences", score.sentences}};
  out["layer"] = score.layer >= 0 ? nlohmann::json(score.layer) : nlohmann::json(nullptr);
  out["head"] = score.head >= 0 ? nlohmann::json(score.head) : nlohmann::json(nullptr);
  out.update(rates(score.reference));
  out["own"] = rates(score.own);
  out["own"]["sentences"] = score.own_sentences;
  out["phenomena"] = nlohmann::json::object();
  for (const auto& [tag, counts] : score.phenomena) {
    out["phenomena"][tag] = rates(counts);
    out["phenomena"][tag]["links"] = counts.sure;
  }
  out.update(deletion_json(score.deletion));
  return out;
}

nlohmann::json best_json(const MethodScore* best) {
  if (!best) return nullptr;
  return {{"name", best->name}, {"aer", best->reference.aer()}};
}

constexpr double chart_width = 1000, chart_height = 300, title_height = 24;

// A colour per series: ColorBrewer's Dark2 and Set1, then round again.
std::string series_colour(size_t n) {
  static const std::array<const char*, 12> colours = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02",
                                                      "#a6761d", "#666666", "#e41a1c", "#377eb8", "#4daf4a", "#984ea3"};
  return colours[n % colours.size()];
}

// A method's name as a legend keeps it short: "l1.h3", "l1 mean", "norms l1", or the name itself.
std::string legend_name(const MethodScore& method) {
  const std::string layer = "l" + std::to_string(method.layer);
  if (method.family == "head") return layer + ".h" + std::to_string(method.head);
  if (method.family == "head_mean") return layer + " mean";
  if (method.family == "value_norms") return "norms " + layer;
  return method.name;
}

// One line chart (no title: the picture writes it above) of AER against the step: of the cross-attention heads
// (`heads`), or of every other method.
LineChart aer_chart(const std::vector<AlignmentReport>& reports, bool heads) {
  LineChart chart{"", "training step", "AER (lower = closer to the gold)", {}, false, chart_width, 300};
  for (const MethodScore& method : reports.back().methods) {
    if ((method.family == "head") != heads) continue;
    ChartSeries series{legend_name(method), series_colour(chart.series.size()), {}};
    for (const AlignmentReport& report : reports) {
      for (const MethodScore& m : report.methods) {
        if (m.name == method.name) series.points.emplace_back(double(report.step), m.reference.aer());
      }
    }
    if (!series.points.empty()) chart.series.push_back(std::move(series));
  }
  // The legend is one row: at most 12 series, the ones closest to the gold at the last checkpoint.
  std::stable_sort(chart.series.begin(), chart.series.end(), [](const ChartSeries& a, const ChartSeries& b) {
    return a.points.back().second < b.points.back().second;
  });
  if (chart.series.size() > 12) chart.series.resize(12);
  return chart;
}

}  // namespace

nlohmann::json alignment_json(const AlignmentReport& report) {
  nlohmann::json out{{"checkpoint", report.checkpoint},
                     {"step", report.step},
                     {"loss", report.loss},
                     {"sentences", report.sentences},
                     {"own_sentences", report.own_sentences},
                     {"gradient_sentences", report.gradient_sentences},
                     {"skipped_empty", report.skipped_empty},
                     {"skipped_long", report.skipped_long},
                     {"integration_steps", report.integration_steps},
                     {"deletions", report.deletions},
                     {"notes", report.notes}};
  out["methods"] = nlohmann::json::array();
  for (const MethodScore& score : report.methods) out["methods"].push_back(method_json(score));
  out["random"] = deletion_json(report.random);
  out["best_head"] = best_json(best_method(report, "head"));
  out["best_method"] = best_json(best_method(report));
  out["seconds"] = {{"translation", report.seconds_translation},
                    {"attention", report.seconds_attention},
                    {"gradient", report.seconds_gradient},
                    {"deletion", report.seconds_deletion}};
  return out;
}

std::string alignment_heads_svg(const AlignmentReport& report, const std::string& title) {
  Heatmap map;
  map.title = title;
  map.row_axis = "decoder layer", map.column_axis = "cross-attention head (and their mean)";
  int64_t layers = 0, heads = 0;
  for (const MethodScore& m : report.methods) {
    if (m.family == "head") layers = std::max(layers, m.layer + 1), heads = std::max(heads, m.head + 1);
  }
  for (int64_t l = 0; l < layers; ++l) map.row_labels.push_back("layer " + std::to_string(l));
  for (int64_t h = 0; h < heads; ++h) map.column_labels.push_back("head " + std::to_string(h));
  map.column_labels.push_back("mean");
  const int64_t columns = heads + 1;
  map.weights.assign(static_cast<size_t>(layers * columns), 0.0);           // [layers, heads + 1]: AER
  for (const MethodScore& m : report.methods) {
    if (m.family == "head") map.weights[m.layer * columns + m.head] = m.reference.aer();
    if (m.family == "head_mean") map.weights[m.layer * columns + heads] = m.reference.aer();
  }
  HeatmapStyle style;
  style.cell = 44;
  return heatmap_svg(map, style);
}

std::string alignment_training_svg(const std::vector<AlignmentReport>& reports, const std::string& title) {
  if (reports.empty()) return "";
  LineChart loss{"", "training step", "nats per target token", {}, false, chart_width, chart_height};
  ChartSeries series{"loss", "#333333", {}};
  for (const AlignmentReport& report : reports) series.points.emplace_back(double(report.step), report.loss);
  loss.series.push_back(std::move(series));
  const std::vector<std::pair<std::string, LineChart>> charts = {
      {title + " — AER of the cross-attention heads (the 12 closest to the gold at the last step)", aer_chart(reports, true)},
      {title + " — AER of the other methods", aer_chart(reports, false)},
      {title + " — the loss, teacher-forced on the scored pairs", loss}};
  const std::string height = std::to_string(int(charts.size() * (chart_height + title_height)));
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(int(chart_width)) + "\" height=\"" + height + "\" viewBox=\"0 0 " +
                    std::to_string(int(chart_width)) + " " + height + "\" font-family=\"sans-serif\">\n";
  for (size_t c = 0; c < charts.size(); ++c) {
    const int top = int(c * (chart_height + title_height));
    out += "<text x=\"8\" y=\"" + std::to_string(top + 18) + "\" font-size=\"13\" font-weight=\"bold\">" +
           xml_escape(charts[c].first) + "</text>\n";
    out += "<g transform=\"translate(0," + std::to_string(top + int(title_height)) + ")\">\n" +
           line_chart_svg(charts[c].second) + "</g>\n";
  }
  return out + "</svg>\n";
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
