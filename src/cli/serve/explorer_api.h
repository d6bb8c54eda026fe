// explorer_api.h — what `attnlab serve` answers: the explorer page, the runs, and one sentence's attention.
//
//   GET  /                the explorer page (src/inspect/pages/explorer_page.h) with a form: no sentence yet, the
//                         limits below written into it (ask_limits()), and its Content-Security-Policy
//   GET  /api/runs        {"runs": ["runs/a", "b"]}: each run by its path relative to serve's working folder, or
//                         by its folder's name when it lies outside (shown_run_names()): never an absolute path
//   POST /api/translate   {"run": 0, "text": "a happy girl .", "beam": 1, "ig_steps": 16}  (all but "text"
//                         optional; beam 0 … 16, 0 by default: the run's own decode.beam; ig_steps 0 … 64, 0 by
//                         default: no gradient attribution in "flow")
//                         → the sentence's attention.json (the schema `attnlab attention` writes,
//                           docs/guide/explorer-and-serve.md): the translation, every map, the numbers behind
//                           each weight; for a cloze run (model.task: cloze) "text" is a question
//                           ("<document> @query <query>") and the answer cloze.json (src/inspect/maps/cloze_maps.h)
//   anything else         404
// Every refusal is a JSON object {"error": "…"} saying what was wrong: 400 for a request that is not a JSON
// object, a text that is missing, empty, longer than --max-text-bytes, not UTF-8 or with no token, a run or beam
// out of range; 405 for a method the path does not take; 413 for a body over the limit, or for a sentence whose
// answer would be larger than --max-answer-mb (estimated before anything is computed: below); 503 when the
// translation queue is full.
//
// The answer's size grows with the square of the sentence: every attention map holds layers × heads × T_query ×
// T_key weights, and behind each weight the neuron view keeps the stages that made it (additive attention's tanh
// alone is d_k numbers a weight). So before translating, the source is tokenized (n tokens), the translation's
// length is bounded as decoding bounds it (m ≤ max_len_ratio · n + max_len_extra, plus <s>), and
//   numbers ≈ heads · (d_k + 5) · (encoder_layers · n² + decoder_layers · (m² + m · n)) + 2 · beam · m²
//             + n² + 3 · m · n + m²   (the flow: rollout and the two attributions)
// at about 10 bytes a number in the JSON is compared with the limit (answer_estimate_bytes()).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cli/serve/http_server.h"
#include "cloze/cloze_training.h"
#include "inspect/pages/explorer_page.h"
#include "run/run.h"

namespace attnlab {

// What a request may ask for: the one place these numbers live (the page is told them: ask_limits()).
struct ExplorerApiOptions {
  int64_t max_text_bytes = 1000;
  int64_t max_answer_bytes = int64_t{64} << 20;
  int64_t max_beam = 16;       // "beam" 0 … max_beam
  int64_t max_ig_steps = 64;   // "ig_steps" 0 … max_ig_steps
};

struct ServedRun {
  std::string dir;
  std::string name;                       // how the page and every answer show it (shown_run_names())
  LoadedRun run;                          // a translation run; or, when `cloze` is set, empty
  std::unique_ptr<LoadedClozeRun> cloze;  // a cloze run (model.task: cloze): its reader answers questions
  std::mutex in_use;   // one translation at a time per model (record_attention switches the model's path)
};

// The upper estimate above, in bytes, for `source_tokens` tokens and a beam size.
int64_t answer_estimate_bytes(const LoadedRun& run, int64_t source_tokens, int64_t beam);

// The limits of `options` for the page's form, with, for each run and beam size, the most source tokens whose
// answer estimate stays within max_answer_bytes (found by bisection: the estimate grows with the tokens).
AskLimits ask_limits(const std::vector<std::unique_ptr<ServedRun>>& runs, const ExplorerApiOptions& options);

// How serve shows run folders: relative to its working folder when inside it ("runs/a"), else by the folder's
// name ("a"); a name shown already gets " (2)", " (3)" … So a page or an answer never tells a visitor where on
// the server's disk a run lies.
std::vector<std::string> shown_run_names(const std::vector<std::string>& dirs);

// The page's Content-Security-Policy (explorer_api.cpp says why each part).
std::string explorer_page_policy();

// The router of serve: quick answers at once, translations as jobs for the work queue. `page`: the page's HTML.
HttpServer::Router explorer_router(std::vector<std::unique_ptr<ServedRun>>& runs, const std::string& page,
                                   const ExplorerApiOptions& options);

}  // namespace attnlab
