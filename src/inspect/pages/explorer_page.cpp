// explorer_page.cpp — the explorer's files joined into one page with the data (explorer_page.h).
#include "inspect/pages/explorer_page.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "inspect/explorer_files.h"  // generated: explorer_html, explorer_css and one array per script
#include "inspect/pages/attention_page.h"
#include "inspect/pages/page_template.h"
#include "inspect/pages/svg.h"
#include "util/error.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

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
    if (script.find(ending) != std::string::npos)
      throw Error(std::string("the explorer's scripts hold \"") + ending + "\"");
  }
  if (!compared_json.empty() && compared_names.size() != 2) throw Error("a compared page needs its two runs' names");
  const nlohmann::json config = {
      {"mode", runs.empty() ? "file" : "serve"}, {"runs", runs}, {"compared_runs", compared_names}};
  return fill_template(text_of(explorer_html),
                       {{"{{title}}", xml_escape(title)},
                        {"/*{{css}}*/", text_of(explorer_css)},
                        {"{{config}}", json_for_script(config.dump())},
                        {"{{data}}", attention_json.empty() ? "null" : json_for_script(attention_json)},
                        {"{{compared}}", compared_json.empty() ? "null" : json_for_script(compared_json)},
                        {"/*{{script}}*/", script}},
                       "the explorer page template");
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
