// cloze_maps.cpp — α, β, β̄ and s of one cloze question as SVG heatmaps, an HTML page and terminal text.
#include "inspect/maps/cloze_maps.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "inspect/pages/explorer_page.h"
#include "inspect/pages/svg.h"
#include "util/error.h"
#include "util/files.h"
#include "util/suggest.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

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
                                  picture.query, "document", "query", picture.alpha, {}}});
    maps.push_back({"beta.svg", {"β: softmax over query words (each row sums to 1)", picture.document,
                                 picture.query, "document", "query", picture.beta, {}}});
    std::string title = "β̄: β averaged over the document";
    std::vector<double> weights = to_full_scale(picture.beta_mean, title);
    maps.push_back({"beta_mean.svg", {title, {"β̄"}, picture.query, "", "query", weights, {}}});
  }
  std::string title = "s: attention over the document";
  std::vector<double> weights = to_full_scale(picture.s, title);
  maps.push_back({"s.svg", {title, {"s"}, picture.document, "", "document", weights, {}}});

  std::vector<std::string> written;
  for (const auto& [file, map] : maps) {
    const std::string path = out_dir + "/" + file;
    write_file_atomically(path, heatmap_svg(map, style));
    written.push_back(path);
  }
  const std::string json = cloze_json(picture);
  write_file_atomically(out_dir + "/cloze.json", json);
  written.push_back(out_dir + "/cloze.json");
  const std::string page = explorer_page_html("attnlab cloze reader — " + picture.question, json, {});
  write_file_atomically(out_dir + "/index.html", page);
  written.push_back(out_dir + "/index.html");
  return written;
}

// cloze.json, schema "attnlab-cloze/1":
// {
//   "schema": "attnlab-cloze/1", "task": "cloze", "reader": "aoa" | "as",
//   "checkpoint": "runs/c/checkpoints/best.safetensors", "step": 400,
//   "source": "the question line as given",
//   "document": ["mary", …], "document_unknown": [false, …],   the document's words; true: the model read <unk>
//   "query": ["@placeholder", …], "query_unknown": [false, …],
//   "alpha": [[…]] | null,       α [n][m]: softmax over document positions, each column sums to 1 (aoa only)
//   "beta": [[…]] | null,        β [n][m]: softmax over query words, each row sums to 1 (aoa only)
//   "beta_mean": […] | null,     β̄ [m]: β averaged over the document positions (aoa only)
//   "s": […],                    s [n]: attention over the document (aoa: α β̄ᵀ; as: the softmax of d_i · q)
//   "answers": [{"word": "mary", "p": 0.83}, …]   the document's words of highest P = Σ_{i: d_i = w} s_i
// }
// Numbers as computed (not rounded): the page shows them, and a script reads them.
std::string cloze_json(const ClozePicture& picture) {
  const auto n = picture.document.size(), m = picture.query.size();
  auto rows = [&](const std::vector<double>& values) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (size_t i = 0; i < n; ++i) out.push_back(std::vector<double>(values.begin() + i * m, values.begin() + (i + 1) * m));
    return out;
  };
  nlohmann::ordered_json out;
  out["schema"] = "attnlab-cloze/1";
  out["task"] = "cloze";
  out["reader"] = picture.reader;
  out["checkpoint"] = picture.checkpoint;
  out["step"] = picture.step;
  out["source"] = picture.question;
  out["document"] = picture.document;
  out["document_unknown"] = picture.document_unknown;
  out["query"] = picture.query;
  out["query_unknown"] = picture.query_unknown;
  out["alpha"] = picture.has_aoa ? rows(picture.alpha) : nlohmann::ordered_json(nullptr);
  out["beta"] = picture.has_aoa ? rows(picture.beta) : nlohmann::ordered_json(nullptr);
  out["beta_mean"] = picture.has_aoa ? nlohmann::ordered_json(picture.beta_mean) : nlohmann::ordered_json(nullptr);
  out["s"] = picture.s;
  out["answers"] = nlohmann::ordered_json::array();
  for (const auto& [word, p] : picture.top_answers) out["answers"].push_back({{"word", word}, {"p", p}});
  return out.dump(1) + "\n";
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

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
