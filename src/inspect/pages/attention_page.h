// attention_page.h — HTML pages of chapter "Looking inside": the attention grid, and the shell every page shares.
//
// Pages are self-contained: CSS, script and pictures (inline SVG) sit in the one file, nothing is fetched, so a
// page can be mailed, opened from disk, or kept next to its run forever. The pictures are drawn in C++ (svg.h)
// and visible without the script; the script adds the hover read-out: pointing at a cell shows
//   query “ne” → key “not”: 0.912
// from the weights embedded in the page as JSON. When the script has wired up every map it sets
// data-maps-ready="N" on <body> (N = the number of head pictures), which the browser test reads.
#pragma once

#include <string>

#include "inspect/maps/attention_maps.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// A whole page: <head> with the shared CSS, the body, a hover box, and the shared script.
std::string html_document(const std::string& title, const std::string& body);

// A <section>: the sentence pair, then for each attention type a grid of layers (rows) × heads (columns),
// each cell a heatmap; and the weights as JSON for the hover read-out.
std::string attention_section_html(const AttentionPicture& picture);

// index.html of `attnlab attention`: the section above as a page of its own.
std::string attention_page_html(const AttentionPicture& picture);

// JSON as the text of an HTML <script> element. Inside one, the HTML parser still looks for "</script" and, after
// "<!--", for "<script" (which would make the next "</script>" not close the element — a page blanked by its own
// sentence), so every <, > and & is written \u003c, \u003e, \u0026, and U+2028 and U+2029 (line ends to older
// JavaScript) \u2028, \u2029. Outside its strings JSON has none of these characters, so the text is the same
// JSON: JSON.parse reads back exactly what was written, whatever a sentence, a vocabulary entry or a run's name holds.
std::string json_for_script(const std::string& json);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
