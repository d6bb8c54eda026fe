// explorer_page.cpp — the explorer's files joined into one page with the data (explorer_page.h).
#include "inspect/explorer_page.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "inspect/attention_page.h"
#include "inspect/explorer_files.h"   // generated: explorer_html, explorer_css and one array per script
#include "inspect/svg.h"
#include "util/error.h"

namespace attnlab::inline ATTNLAB_PRECISION {

namespace {

// Puts each text where the template has its marker, in the order the markers stand in the template; the search
// for a marker starts after the text put before it, so a marker inside data (a sentence may hold anything) is
// never mistaken for the template's own. Throws if the template lost a marker.
std::string fill(std::string page, const std::vector<std::pair<std::string, std::string>>& parts) {
  size_t cursor = 0;
  for (const auto& [marker, text] : parts) {
    const size_t at = page.find(marker, cursor);
    if (at == std::string::npos) throw Error("the explorer page template has no " + marker + " (in this order)");
    page.replace(at, marker.size(), text);
    cursor = at + text.size();
  }
  return page;
}

// One of the generated arrays as text (its last byte is the 0 the generator appends).
template <size_t N>
std::string text_of(const unsigned char (&bytes)[N]) {
  return std::string(reinterpret_cast<const char*>(bytes), N - 1);
}

}  // namespace

std::string explorer_page_html(const std::string& title, const std::string& attention_json,
                               const std::vector<std::string>& runs, const std::string& compared_json,
                               const std::vector<std::string>& compared_names) {
  // The scripts in the order they build on one another: the shared helpers, the views, then the page itself.
  const std::string script = text_of(common_js) + text_of(controls_js) + text_of(maps_js) + text_of(neuron_js) +
                             text_of(steps_js) + text_of(flow_js) + text_of(cloze_js) + text_of(serve_js) +
                             text_of(explorer_js);
  // A script element ends at the first "</script", and "<!--" changes how the parser looks for that end: the
  // page's own code must hold neither (the data is escaped, json_for_script).
  for (const char* ending : {"</script", "<!--"}) {
    if (script.find(ending) != std::string::npos) throw Error(std::string("the explorer's scripts hold \"") + ending + "\"");
  }
  if (!compared_json.empty() && compared_names.size() != 2) throw Error("a compared page needs its two runs' names");
  const nlohmann::json config = {{"mode", runs.empty() ? "file" : "serve"}, {"runs", runs},
                                 {"compared_runs", compared_names}};
  return fill(text_of(explorer_html), {{"{{title}}", xml_escape(title)},
                                       {"/*{{css}}*/", text_of(explorer_css)},
                                       {"{{config}}", json_for_script(config.dump())},
                                       {"{{data}}", attention_json.empty() ? "null" : json_for_script(attention_json)},
                                       {"{{compared}}", compared_json.empty() ? "null" : json_for_script(compared_json)},
                                       {"/*{{script}}*/", script}});
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
