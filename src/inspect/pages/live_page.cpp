// live_page.cpp — the live explorer: the explorer page, the engine, a run and the page's own code in one file
// (live_page.h).
#include "inspect/pages/live_page.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "inspect/live_files.h"  // generated: live_panel_html, live_scripts_html, live_css, live_js, training_js,
#include "inspect/pages/attention_page.h"
#include "inspect/pages/explorer_page.h"
#include "inspect/pages/page_template.h"
// copy_yaml, reverse_yaml, toy_en_fr_yaml
#include "util/base64.h"
#include "util/error.h"
#include "util/files.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace {

// Text that goes inside a <script> element as it is (JavaScript, a config): it must not end the element early.
const std::string& script_safe(const std::string& text, const std::string& what) {
  for (const char* ending : {"</script", "<!--"}) {
    if (text.find(ending) != std::string::npos) throw Error(what + " holds \"" + ending + "\"");
  }
  return text;
}

}  // namespace

LiveRun live_run_files(const std::string& run_dir, const std::string& checkpoint_path) {
  namespace fs = std::filesystem;
  LiveRun run;
  run.name = fs::path(run_dir).filename().string();
  if (run.name.empty()) run.name = fs::path(run_dir).parent_path().filename().string();
  for (const auto& entry : fs::directory_iterator(run_dir)) {
    const std::string name = entry.path().filename().string();
    if (name == "config.yaml" || name.find("tokenizer") != std::string::npos) {
      run.files[name] = read_text_file(entry.path().string());
    }
  }
  run.checkpoint = "checkpoints/" + fs::path(checkpoint_path).filename().string();
  run.files[run.checkpoint] = read_text_file(checkpoint_path);
  return run;
}

std::string live_page_html(const std::string& title, const LiveRun* run, const std::string& engine_js) {
  const std::string explorer =
      explorer_page_html(title, "", {run ? run->name : "your run (pick its files)", "trained in this page"});
  nlohmann::json bundled = nullptr;
  if (run) {
    bundled = {{"name", run->name}, {"checkpoint", run->checkpoint}, {"files", nlohmann::json::object()}};
    for (const auto& [path, bytes] : run->files) bundled["files"][path] = base64(bytes);
  }
  const std::string scripts = fill_template(
      text_of(live_scripts_html),
      {{"{{run}}", json_for_script(bundled.dump())},
       {"{{copy}}", script_safe(text_of(copy_yaml), "configs/copy.yaml")},
       {"{{reverse}}", script_safe(text_of(reverse_yaml), "configs/reverse.yaml")},
       {"{{toy-en-fr}}", script_safe(text_of(toy_en_fr_yaml), "configs/toy-en-fr.yaml")},
       {"/*{{css}}*/", text_of(live_css)},
       {"/*{{engine}}*/", script_safe(engine_js, "the engine script")},
       {"/*{{script}}*/", script_safe(text_of(live_js) + text_of(training_js), "live.js or training.js")}},
      "live_scripts.html");
  return fill_template(explorer,
                       {{"</header>", "</header>\n" + text_of(live_panel_html)}, {"</body>", scripts + "</body>"}},
                       "the explorer page");
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
