// attention_page.cpp — the attention grid as HTML, and the page shell (CSS, hover script) pages share.
#include "inspect/pages/attention_page.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "inspect/pages/svg.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

const char* page_css = R"(
body { font-family: sans-serif; margin: 24px; color: #222; background: #fff; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; } h3 { font-size: 15px; margin-top: 22px; }
table.grid { border-collapse: collapse; }
table.grid th { font-size: 12px; font-weight: normal; color: #555; padding: 2px 6px; }
table.grid td { vertical-align: top; padding: 2px; }
.scroll { overflow-x: auto; }
.pair { font-size: 15px; line-height: 1.6; }
.pair code { background: #f3f3f3; padding: 1px 4px; }
.note { color: #555; font-size: 13px; max-width: 60em; }
table.samples { border-collapse: collapse; font-size: 14px; }
table.samples td, table.samples th { border-bottom: 1px solid #ddd; padding: 4px 10px; text-align: left; }
.wrong { color: #b00; }
#tooltip { position: absolute; display: none; background: #222; color: #fff; font-size: 13px; padding: 4px 8px;
           border-radius: 4px; pointer-events: none; white-space: nowrap; }
)";

// Finds every section's embedded weights and wires each heatmap's cells to the hover box. Throws (a console
// error the browser test catches) if a picture and its data disagree.
const char* page_script = R"(
(function () {
  var tip = document.getElementById('tooltip');
  var bound = 0;
  document.querySelectorAll('script.attention-data').forEach(function (block) {
    var data = JSON.parse(block.textContent);
    block.parentElement.querySelectorAll('svg[data-map]').forEach(function (svg) {
      var parts = svg.getAttribute('data-map').split('/');
      var map = data.maps[Number(parts[0])], head = Number(parts[1]);
      if (!map || !map.weights[head]) throw new Error('no weights for picture ' + parts.join('/'));
      var cells = svg.querySelectorAll('rect[data-i]');
      if (cells.length !== map.queries.length * map.keys.length) {
        throw new Error('picture ' + parts.join('/') + ' has ' + cells.length + ' cells, its data ' +
                        map.queries.length + ' x ' + map.keys.length);
      }
      svg.addEventListener('mousemove', function (event) {
        var cell = event.target;
        if (!cell.hasAttribute('data-i')) { tip.style.display = 'none'; return; }
        var i = Number(cell.getAttribute('data-i')), j = Number(cell.getAttribute('data-j'));
        tip.textContent = 'query \u201c' + map.queries[i] + '\u201d \u2192 key \u201c' + map.keys[j] + '\u201d: ' +
                          map.weights[head][i][j].toFixed(3);
        tip.style.left = (event.pageX + 14) + 'px';
        tip.style.top = (event.pageY + 14) + 'px';
        tip.style.display = 'block';
      });
      svg.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
      bound += 1;
    });
  });
  document.body.setAttribute('data-maps-ready', String(bound));
  document.querySelectorAll('.status').forEach(function (status) {
    status.textContent = bound + ' pictures; point at a cell to read its query, key and weight.';
  });
})();
)";

std::string escape(const std::string& text) { return xml_escape(text); }

std::string token_list(const std::vector<std::string>& tokens) {
  std::string out;
  for (const auto& token : tokens) out += "<code>" + escape(token) + "</code> ";
  return out;
}

}  // namespace

std::string json_for_script(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (json.compare(i, 3, "\u2028") == 0 || json.compare(i, 3, "\u2029") == 0) {   // E2 80 A8, E2 80 A9
      out += json[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";   // LINE SEPARATOR, PARAGRAPH SEPARATOR
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string html_document(const std::string& title, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + escape(title) +
         "</title>\n<style>" + page_css + "</style>\n</head>\n<body>\n" + body +
         "<div id=\"tooltip\"></div>\n<script>" + page_script + "</script>\n</body>\n</html>\n";
}

std::string attention_section_html(const AttentionPicture& picture) {
  std::string out = "<section class=\"attention\">\n";
  if (picture.generation) {   // a language model's text (language_model_maps.h): no source
    out += "<p class=\"pair\">text (" + std::to_string(picture.generation->prompt_tokens) + " prompt tokens" +
           (picture.target_forced ? "" : ", then the model's continuation") + "): " +
           token_list(picture.target_output_tokens) + "</p>\n";
  } else {
    out += "<p class=\"pair\">source: " + token_list(picture.source_tokens) + "<br>target (" +
           (picture.target_forced ? "given" : "the model's greedy translation") + "): " +
           token_list(picture.target_output_tokens) + "</p>\n";
  }
  out += "<p class=\"note\">Rows are queries, columns keys; a cell's colour is the weight (0 white, 1 dark blue), "
         "each row sums to 1. Cross-attention rows are labelled with the target token that position predicts. "
         "Weights of " + escape(picture.checkpoint) + " (step " + std::to_string(picture.step) +
         ").</p>\n<p class=\"note status\">(the hover read-out needs JavaScript)</p>\n";

  // The data behind the hover read-out: labels and weights of every map, in picture.maps order.
  nlohmann::json data;
  data["maps"] = nlohmann::json::array();
  for (const auto& map : picture.maps) {
    nlohmann::json weights = nlohmann::json::array();
    for (int64_t h = 0; h < map.heads; ++h) {
      nlohmann::json rows = nlohmann::json::array();
      for (int64_t i = 0; i < map.queries; ++i) {
        std::vector<double> row(map.weights.begin() + (h * map.queries + i) * map.keys,
                                map.weights.begin() + (h * map.queries + i + 1) * map.keys);
        for (double& w : row) w = std::round(w * 1e4) / 1e4;
        rows.push_back(row);
      }
      weights.push_back(std::move(rows));
    }
    data["maps"].push_back({{"name", map.name},
                            {"queries", query_labels(picture, map)},
                            {"keys", key_labels(picture, map)},
                            {"weights", std::move(weights)}});
  }

  for (const std::string type : {"encoder_self", "decoder_self", "cross"}) {
    int64_t heads = 0;
    for (const auto& map : picture.maps) heads = map.type == type ? std::max(heads, map.heads) : heads;
    if (heads == 0) continue;
    out += "<h3>" + escape(type_title(type)) + "</h3>\n<div class=\"scroll\"><table class=\"grid\">\n<tr><th></th>";
    for (int64_t h = 0; h < heads; ++h) out += "<th>head " + std::to_string(h) + "</th>";
    out += "</tr>\n";
    for (size_t m = 0; m < picture.maps.size(); ++m) {
      const auto& map = picture.maps[m];
      if (map.type != type) continue;
      out += "<tr><th>layer " + std::to_string(map.layer) + "<br>" + escape(name_of(map.kind)) + "</th>";
      for (int64_t h = 0; h < map.heads; ++h) {
        HeatmapStyle style;
        style.cell = map.keys > 24 ? 8 : 16;
        style.standalone = false;
        style.cell_titles = false;
        style.data_map = std::to_string(m) + "/" + std::to_string(h);
        Heatmap heatmap = heatmap_of(picture, map, h);
        heatmap.title.clear();   // the grid's row and column headers say which layer and head it is
        out += "<td>" + heatmap_svg(heatmap, style) + "</td>";
      }
      out += "</tr>\n";
    }
    out += "</table></div>\n";
  }
  out += "<script type=\"application/json\" class=\"attention-data\">" + json_for_script(data.dump()) +
         "</script>\n</section>\n";
  return out;
}

std::string attention_page_html(const AttentionPicture& picture) {
  const std::string body = "<h1>Attention: " + escape(picture.source_text) + " → " + escape(picture.target_text) +
                           "</h1>\n" + attention_section_html(picture);
  return html_document("attnlab attention — " + picture.source_text, body);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
