// cloze_maps.h — the pictures of attention over attention for one cloze question (`attnlab attention` on a
// cloze run): α, β, β̄ and s as heatmaps (svg.h), and the same as shaded text for a terminal.
//
//   alpha.svg      α [n, m]: document words (rows) × query words (columns); each column sums to 1 — where in the
//                  document each query word looks
//   beta.svg       β [n, m]: the same grid; each row sums to 1 — which query word each document word matches
//   beta_mean.svg  β̄ [1, m]: how much each query word's α counts (the attention over the attentions)
//   s.svg          s [1, n]: the final attention over the document; the answer is the word with most of it
// An attention-sum reader has only s (s.svg). cloze.json holds the same numbers (schema at cloze_json() in
// cloze_maps.cpp), and index.html is the explorer (explorer_page.h) with its cloze view: the question, P of the
// top words, and α, β, β̄ and s to point at and read by keyboard. `attnlab serve` answers a cloze run's
// questions with the same JSON.
#pragma once

#include <string>
#include <vector>

#include "attention/reader.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

struct ClozePicture {
  std::string question;                       // the line asked: "<document> @query <query with @placeholder>"
  std::string reader;                         // "aoa" or "as" (model.reader)
  std::string checkpoint;                     // which weights drew it, and their step
  int64_t step = 0;
  std::vector<std::string> document, query;   // the words (padding dropped)
  std::vector<bool> document_unknown, query_unknown;   // true where the model read <unk>
  bool has_aoa = false;                       // α, β, β̄ below are set (model.reader: aoa)
  std::vector<double> alpha, beta;            // [n · m], row-major: document position i, query word j
  std::vector<double> beta_mean;              // [m]
  std::vector<double> s;                      // [n]
  std::vector<std::pair<std::string, double>> top_answers;   // the words of highest P, best first
};

// The maps of batch row 0 of `maps` (or only s, when maps is null), cut to the real lengths n and m.
ClozePicture make_cloze_picture(const std::vector<std::string>& document, const std::vector<std::string>& query,
                                const Tensor& s, const AoaMaps* maps,
                                std::vector<std::pair<std::string, double>> top_answers);

// The picture as cloze.json (the explorer's data for a cloze run).
std::string cloze_json(const ClozePicture& picture);

// Writes alpha.svg, beta.svg, beta_mean.svg, s.svg (those that exist), cloze.json and index.html into out_dir
// (created if missing). Returns the paths, index.html last.
std::vector<std::string> write_cloze_folder(const ClozePicture& picture, const std::string& out_dir);

// The maps as text: one line per document word, its s as a bar and (aoa) its α per query word as shades.
std::string cloze_terminal_text(const ClozePicture& picture);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
