// report.cpp — the run report: metrics read back from metrics.jsonl, drawn as charts, with samples and attention.
#include "inspect/pages/report.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "inspect/pages/attention_page.h"
#include "inspect/pages/svg.h"
#include "util/error.h"
#include "util/quote.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// A line's "type" ("train", "valid"), or "" when it has none or it is not a string (such a line is skipped).
std::string type_of(const nlohmann::json& line) {
  const auto it = line.find("type");
  return it != line.end() && it->is_string() ? it->get<std::string>() : "";
}

double field(const nlohmann::json& line, const char* name, const std::string& where) {
  const auto it = line.find(name);
  if (it == line.end() || !it->is_number()) {
    throw Error(where + ": a \"" + type_of(line) + "\" line without the number \"" + name + "\"");
  }
  return it->get<double>();
}

// The "step" of a line: a whole number ≥ 0 (a double that large would not even convert to int64_t).
int64_t step_of(const nlohmann::json& line, const std::string& where) {
  const double step = field(line, "step", where);
  if (!(step >= 0 && step <= 1e15 && step == std::floor(step))) {
    throw Error(where + ": \"step\" is " + line["step"].dump() + ", not a step number (a whole number ≥ 0)");
  }
  return static_cast<int64_t>(step);
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * share);
  return text;
}

}  // namespace

TrainingHistory read_metrics(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path + " (the run's metrics: is this a run folder?)");
  TrainingHistory history;
  std::string text;
  int64_t line_number = 0;
  while (std::getline(in, text)) {
    ++line_number;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(line_number);
    nlohmann::json line;
    try {
      line = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw Error(where + " is not JSON: " + library_reason(e.what()));
    }
    if (!line.is_object()) throw Error(where + " is not a JSON object");
    const std::string type = type_of(line);
    if (type == "train") {
      history.train.push_back({step_of(line, where), field(line, "loss", where),
                               field(line, "lr", where), field(line, "tokens_per_s", where),
                               field(line, "elapsed_s", where)});
    } else if (type == "valid") {
      ValidRecord record{step_of(line, where), field(line, "loss", where),
                         field(line, "perplexity", where), field(line, "token_accuracy", where),
                         std::nullopt, std::nullopt};
      if (line.contains("exact_match")) record.exact_match = field(line, "exact_match", where);
      if (line.contains("bleu")) record.bleu = field(line, "bleu", where);
      history.valid.push_back(record);
    }
  }
  return history;
}

namespace {

// The sample translations (or a language model's continuations) as a table: red where the output differs.
std::string samples_html(const ReportInputs& inputs) {
  std::string body;
  body += std::string(inputs.language_model ? "<h2>Sample continuations</h2>" : "<h2>Sample translations</h2>") +
          "\n<p class=\"note\">" + xml_escape(inputs.samples_from) + "</p>\n";
  if (!inputs.samples.empty()) {
    body += inputs.language_model ? "<table class=\"samples\">\n<tr><th>prompt</th><th>the text goes on</th><th>attnlab "
                                    "continues</th></tr>\n"
                                  : "<table class=\"samples\">\n<tr><th>source</th><th>reference</th><th>attnlab</th></tr>\n";
    for (const auto& s : inputs.samples) {
      const bool right = s.output == s.reference;
      body += "<tr><td>" + xml_escape(s.source) + "</td><td>" + xml_escape(s.reference) + "</td><td" +
              (right ? "" : " class=\"wrong\"") + ">" + xml_escape(s.output) + (right ? " ✓" : "") + "</td></tr>\n";
    }
    body += "</table>\n";
  }
  return body;
}

}  // namespace

std::string report_html(const ReportInputs& inputs) {
  const TrainingHistory& h = inputs.history;
  std::string body = "<h1>Run report: " + xml_escape(inputs.run_dir) + "</h1>\n";
  body += "<p class=\"note\">" + xml_escape(inputs.config_summary) + "</p>\n";

  // Summary line: where training ended and how good the last validation was.
  if (!h.train.empty()) {
    const TrainRecord& last = h.train.back();
    char text[200];
    std::snprintf(text, sizeof text, "Last logged step %lld: training loss %.4f after %.0f s (%.0f tokens/s).",
                  static_cast<long long>(last.step), last.loss, last.elapsed_s, last.tokens_per_s);
    body += "<p>" + std::string(text);
    if (!h.valid.empty()) {
      const ValidRecord& v = h.valid.back();
      std::snprintf(text, sizeof text, " Last validation (step %lld): loss %.4f, perplexity %.3f, ",
                    static_cast<long long>(v.step), v.loss, v.perplexity);
      body += text + std::string("token accuracy ") + percent(v.token_accuracy);
      if (v.exact_match) body += ", exact match " + percent(*v.exact_match);
      if (v.bleu) {
        std::snprintf(text, sizeof text, ", BLEU %.2f", *v.bleu);
        body += text;
      }
      body += ".";
    }
    body += "</p>\n";
  }

  body += "<h2>Loss</h2>\n<p class=\"note\">Cross-entropy per target token. Training loss is what the optimizer "
          "minimises: label-smoothed (train.label_smoothing) and with dropout, averaged over the steps since the "
          "previous log line — smoothing keeps it from approaching 0. Validation loss is the plain cross-entropy "
          "over the whole validation split, without dropout: the true objective.</p>\n";
  LineChart loss{"loss", "step", "loss per token", {}, /*log_y=*/true};
  ChartSeries train_loss{"training", "#1f77b4", {}}, valid_loss{"validation", "#d62728", {}};
  for (const auto& r : h.train) train_loss.points.push_back({double(r.step), r.loss});
  for (const auto& r : h.valid) valid_loss.points.push_back({double(r.step), r.loss});
  loss.series = {train_loss, valid_loss};
  body += line_chart_svg(loss);

  body += "<h2>Learning rate</h2>\n";
  LineChart lr{"learning rate (the schedule)", "step", "learning rate", {}, false};
  ChartSeries lr_series{"lr", "#2ca02c", {}};
  for (const auto& r : h.train) lr_series.points.push_back({double(r.step), r.lr});
  lr.series = {lr_series};
  body += line_chart_svg(lr);

  body += "<h2>Validation quality</h2>\n<p class=\"note\">Token accuracy: share of target tokens predicted right "
          "with the reference prefix given (teacher forcing). Exact match: share of sampled validation sentences "
          "whose greedy translation equals the reference.</p>\n";
  LineChart quality{"validation accuracy", "step", "share", {}, false};
  ChartSeries token_accuracy{"token accuracy", "#9467bd", {}}, exact_match{"exact match", "#ff7f0e", {}};
  for (const auto& r : h.valid) {
    token_accuracy.points.push_back({double(r.step), r.token_accuracy});
    if (r.exact_match) exact_match.points.push_back({double(r.step), *r.exact_match});
  }
  quality.series = {token_accuracy, exact_match};
  body += line_chart_svg(quality);
  ChartSeries bleu{"BLEU", "#8c564b", {}};
  for (const auto& r : h.valid) {
    if (r.bleu) bleu.points.push_back({double(r.step), *r.bleu});
  }
  if (!bleu.points.empty()) {
    body += "<h2>BLEU over time</h2>\n";
    body += line_chart_svg(LineChart{"validation BLEU", "step", "BLEU", {bleu}, false});
  } else {
    body += "<p class=\"note\">No BLEU in this run's metrics (validation did not compute it).</p>\n";
  }

  body += samples_html(inputs);

  if (inputs.attention) {
    body += std::string(inputs.language_model ? "<h2>Attention over one text</h2>\n" : "<h2>Attention of one sentence</h2>\n") +
            attention_section_html(*inputs.attention);
  }
  return html_document("attnlab report — " + inputs.run_dir, body);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
