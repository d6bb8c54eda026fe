// live_page.h — the live explorer: the explorer page with attnlab itself inside, so it translates, records the
// attention and trains in the page, opened from disk, with no server and no install.
//
// `attnlab attention --live --out DIR [--run RUN]` writes it as DIR/index.html, one file:
//   the explorer       explorer_page.h's page, as `attnlab serve` hands it out (a form that asks for sentences)
//   the engine         the browser build of attnlab (cmake --preset wasm: web/engine.cpp and every chapter,
//                      WebAssembly inside a JavaScript file), read from the file --engine names
//   the run            RUN's config.yaml, tokenizer files and one checkpoint, bundled as base64 (or none: the page
//                      then asks for a run folder's files)
//   live.js            answers the explorer's requests in the page: the engine loads the run from its in-memory
//                      file system and records the attention with the same functions as `attnlab serve`
//   training.js        the training panel: copy, reverse or the toy translator (configs/toy-en-fr.yaml) trains in
//                      a Web Worker (web/training.cpp), pauses, resumes, and downloads as a run folder's .tar
// Everything the page holds is inline: Chromium refuses fetch() of file:// addresses and workers started from
// files, so the WebAssembly is embedded in the engine script and the worker starts from a Blob of that script.
// The page's own files are src/inspect/pages/live/ (read into the binary at build time, like the explorer's).
#pragma once

#include <map>
#include <string>

#include "tensor/real.h"  // ATTNLAB_PRECISION

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// A run folder's files that translating needs, keyed by their path in the folder: config.yaml, every tokenizer
// file, and the checkpoint `checkpoint_path` as checkpoints/<its name>.
struct LiveRun {
  std::string name;
  std::string checkpoint;                    // its path in the folder ("checkpoints/best.safetensors")
  std::map<std::string, std::string> files;  // path → bytes
};
LiveRun live_run_files(const std::string& run_dir, const std::string& checkpoint_path);

// The page; `run` null for a page without a run. `engine_js`: the text of build/wasm/web/attnlab_web.js. Throws
// attnlab::Error when the engine's text could end the page's script element early.
std::string live_page_html(const std::string& title, const LiveRun* run, const std::string& engine_js);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
