// attention_command.cpp — `attnlab attention`: the attention maps of one sentence, as files and in the terminal.
//
// Translates --text (greedily, or by beam search with --beam N) or takes --target, runs one teacher-forced
// forward pass with a recorder (src/inspect/attention_maps.h), and writes into --out: attention.json, one SVG per
// map and head, and index.html, the explorer (src/inspect/explorer_page.h); with --compare RUN2 the same sentence
// through a second run as well (compared.json), which the page's compare view shows beside the first. With --terminal every head is also printed to standard output as a shaded heatmap.
#include <cstdio>

#include "cli/commands.h"
#include "inspect/attention_maps.h"
#include "util/error.h"
#include "cloze/cloze_training.h"
#include "run/run.h"

namespace attnlab {

int attention_command(const AttentionCommandOptions& options) {
  if (options.out.empty() && !options.terminal) {
    throw Error("attnlab attention has nothing to write: give --out DIR (files) and/or --terminal (stdout)");
  }
  if (!options.compare.empty() && options.out.empty()) {
    throw Error("attnlab attention --compare " + options.compare + " draws the page's compare view: give --out DIR too");
  }
  if (is_cloze_run(options.run)) {                                       // α, β, β̄, s of a reader
    if (!options.compare.empty()) throw Error("attnlab attention --compare works on translation runs, not on a cloze run");
    return cloze_attention_command(options);
  }
  LoadedRun run = load_run(options.run, options.checkpoint);
  AttentionPicture picture = record_attention(run, options.text, options.target, options.beam);
  std::vector<std::string> written;
  if (!options.compare.empty()) {                      // the same sentence (and --target, --beam) through run 2
    LoadedRun other = load_run(options.compare, options.checkpoint);
    const AttentionPicture compared = record_attention(other, options.text, options.target, options.beam);
    written = write_attention_folder(picture, options.out, &compared, {options.run, options.compare});
  } else if (!options.out.empty()) {
    written = write_attention_folder(picture, options.out);
  }
  if (options.terminal) {
    std::printf("source: %s\ntarget: %s%s\n\n", picture.source_text.c_str(), picture.target_text.c_str(),
                picture.target_forced ? " (given)" : " (greedy translation)");
    for (const auto& map : picture.maps) {
      for (int64_t head = 0; head < map.heads; ++head) {
        std::printf("%s\n", terminal_heatmap(picture, map, head).c_str());
      }
    }
  }
  if (!written.empty()) {
    std::printf("%zu files in %s; open %s\n", written.size(), options.out.c_str(), written.back().c_str());
  }
  return 0;
}

}  // namespace attnlab
