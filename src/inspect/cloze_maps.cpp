// cloze_maps.cpp — α, β, β̄ and s of one cloze question as SVG heatmaps, an HTML page and terminal text.
#include "inspect/cloze_maps.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "inspect/svg.h"
#include "util/error.h"
#include "util/files.h"
#include "util/suggest.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

// Batch row 0 of t, cut to rows × columns of its last two axes (t is [1, R, C] or [1, C]).
std::vector<double> row0(const Tensor& t, int64_t rows, int64_t columns) {
  const int64_t stride = t.size(t.rank() - 1);
  std::vector<double> values;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < columns; ++j) values.push_back(t.data()[i * stride + j]);
  }
  return values;
}

// Scales a map so its largest weight is 1 (β̄ and s spread over many words would otherwise be pale); the title
// says so and gives the maximum.
std::vector<double> to_full_scale(std::vector<double> weights, std::string& title) {
  const double most = weights.empty() ? 0 : *std::max_element(weights.begin(), weights.end());
  if (most > 0) {
    for (double& w : weights) w /= most;
    char note[64];
    std::snprintf(note, sizeof note, " (scaled: darkest = %.3f)", most);
    title += note;
  }
  return weights;
}

}  // namespace

ClozePicture make_cloze_picture(const std::vector<std::string>& document, const std::vector<std::string>& query,
                                const Tensor& s, const AoaMaps* maps,
                                std::vector<std::pair<std::string, double>> top_answers) {
  ClozePicture picture;
  picture.document = document;
  picture.query = query;
  const auto n = static_cast<int64_t>(document.size()), m = static_cast<int64_t>(query.size());
  picture.s = row0(s, 1, n);
  if (maps) {
    picture.has_aoa = true;
    picture.alpha = row0(maps->alpha, n, m);
    picture.beta = row0(maps->beta, n, m);
    picture.beta_mean = row0(maps->beta_mean, 1, m);
  }
  picture.top_answers = std::move(top_answers);
  return picture;
}

std::vector<std::string> write_cloze_folder(const ClozePicture& picture, const std::string& out_dir) {
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (error) throw Error("cannot make the folder '" + out_dir + "': " + error.message());
  HeatmapStyle style;
  std::vector<std::pair<std::string, Heatmap>> maps;
  if (picture.has_aoa) {
    maps.push_back({"alpha.svg", {"α: softmax over document positions (each column sums to 1)", picture.document,
                                  picture.query, "document", "query", picture.alpha}});
    maps.push_back({"beta.svg", {"β: softmax over query words (each row sums to 1)", picture.document,
                                 picture.query, "document", "query", picture.beta}});
    std::string title = "β̄: β averaged over the document";
    std::vector<double> weights = to_full_scale(picture.beta_mean, title);
    maps.push_back({"beta_mean.svg", {title, {"β̄"}, picture.query, "", "query", weights}});
  }
  std::string title = "s: attention over the document";
  std::vector<double> weights = to_full_scale(picture.s, title);
  maps.push_back({"s.svg", {title, {"s"}, picture.document, "", "document", weights}});

  std::vector<std::string> written;
  std::string page = "<!doctype html><meta charset=\"utf-8\"><title>attention over attention</title>\n<body "
                     "style=\"font-family: sans-serif\">\n<p>document: " + xml_escape(join(picture.document, " ")) +
                     "<br>query: " + xml_escape(join(picture.query, " ")) + "</p>\n<p>answers by P:";
  for (const auto& [word, p] : picture.top_answers) {
    char share[32];
    std::snprintf(share, sizeof share, " %.3f", p);
    page += " " + xml_escape(word) + share + ";";
  }
  page += "</p>\n";
  for (const auto& [file, map] : maps) {
    const std::string path = out_dir + "/" + file;
    write_file_atomically(path, heatmap_svg(map, style));
    written.push_back(path);
    page += "<p><img src=\"" + file + "\" alt=\"" + xml_escape(map.title) + "\"></p>\n";
  }
  write_file_atomically(out_dir + "/index.html", page);
  written.push_back(out_dir + "/index.html");
  return written;
}

std::string cloze_terminal_text(const ClozePicture& picture) {
  static const char* shades[] = {" ", "░", "▒", "▓", "█"};
  auto shade = [](double w) { return shades[std::clamp(static_cast<int>(w * 4.999), 0, 4)]; };
  std::string text = "query: " + join(picture.query, " ") + "\n";
  if (picture.has_aoa) {
    text += "β̄ (per query word):";
    for (size_t j = 0; j < picture.query.size(); ++j) {
      char value[64];
      std::snprintf(value, sizeof value, " %s %.2f", picture.query[j].c_str(), picture.beta_mean[j]);
      text += value;
    }
    text += "\ndocument word    s      α per query word (columns in query order)\n";
  } else {
    text += "document word    s\n";
  }
  const size_t m = picture.query.size();
  for (size_t i = 0; i < picture.document.size(); ++i) {
    char line[96];
    std::snprintf(line, sizeof line, "%-14s %6.3f  ", picture.document[i].c_str(), picture.s[i]);
    text += line;
    for (size_t j = 0; picture.has_aoa && j < m; ++j) text += shade(picture.alpha[i * m + j]);
    text += "\n";
  }
  text += "answers by P:";
  for (const auto& [word, p] : picture.top_answers) {
    char share[64];
    std::snprintf(share, sizeof share, " %s %.3f", word.c_str(), p);
    text += share;
  }
  return text + "\n";
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
