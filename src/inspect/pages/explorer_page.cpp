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

std::string explorer_script() {
  // The scripts in the order they build on one another: the shared helpers, the views, then the page itself.
  const std::string script = text_of(common_js) + text_of(controls_js) + text_of(maps_js) + text_of(neuron_js) +
                             text_of(steps_js) + text_of(flow_js) + text_of(gold_js) + text_of(film_js) +
                             text_of(cloze_js) + text_of(serve_js) + text_of(interventions_js) +
                             text_of(generate_js) + text_of(explorer_js);
  // A script element ends at the first "</script", and "<!--" changes how the parser looks for that end: the
  // page's own code must hold neither (the data is escaped, json_for_script). A browser reads a carriage return
  // as a line feed, so the text it hashes for the Content-Security-Policy would not be this one: none either.
  for (const auto& [bad, name] : {std::pair<const char*, const char*>{"</script", "\"</script\""},
                                   {"<!--", "\"<!--\""}, {"\r", "a carriage return"}}) {
    if (script.find(bad) != std::string::npos) throw Error(std::string("the explorer's scripts hold ") + name);
  }
  return script;
}

std::string explorer_page_html(const std::string& title, const std::string& attention_json,
                               const std::vector<std::string>& runs, const std::string& compared_json,
                               const std::vector<std::string>& compared_names,
                               const std::optional<AskLimits>& limits, const std::string& film_json) {
  if (!compared_json.empty() && compared_names.size() != 2) throw Error("a compared page needs its two runs' names");
  nlohmann::json config = {{"mode", runs.empty() ? "file" : "serve"}, {"runs", runs},
                           {"compared_runs", compared_names}, {"limits", nullptr},
                           // the film view's film: in the page, asked of a server (serve states its limits), or none
                           {"film", !film_json.empty() ? "page" : limits ? "server" : ""}};
  if (limits) {
    config["limits"] = {{"text_bytes", limits->max_text_bytes}, {"beam", limits->max_beam},
                        {"ig_steps", limits->max_ig_steps}, {"answer_mb", limits->max_answer_mb},
                        {"tokens", limits->max_tokens}, {"language_model", limits->language_model},
                        {"new_tokens", limits->max_new_tokens}, {"temperature", limits->max_temperature},
                        {"top_k", limits->max_top_k}, {"seed", limits->max_seed}};
  }
  return fill_template(text_of(explorer_html),
                       {{"{{title}}", xml_escape(title)},
                        {"/*{{css}}*/", text_of(explorer_css)},
                        {"{{config}}", json_for_script(config.dump())},
                        {"{{data}}", attention_json.empty() ? "null" : json_for_script(attention_json)},
                        {"{{compared}}", compared_json.empty() ? "null" : json_for_script(compared_json)},
                        {"{{film}}", film_json.empty() ? "null" : json_for_script(film_json)},
                        {"/*{{script}}*/", explorer_script()}},
                       "the explorer page template");
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
