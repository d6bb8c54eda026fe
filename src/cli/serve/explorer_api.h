// explorer_api.h — what `attnlab serve` answers: the explorer page, the runs, and one sentence's attention.
//
//   GET  /                the explorer page (src/inspect/pages/explorer_page.h) with a form: no sentence yet
//   GET  /api/runs        {"runs": ["runs/a", "runs/b"]}
//   POST /api/translate   {"run": 0, "text": "a happy girl .", "beam": 1, "ig_steps": 16}  (all but "text"
//                         optional; ig_steps 0 … 64, 0 by default: no gradient attribution in "flow")
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
#include "run/run.h"

namespace attnlab {

struct ExplorerApiOptions {
  int64_t max_text_bytes = 1000;
  int64_t max_answer_bytes = int64_t{64} << 20;
};

struct ServedRun {
  std::string dir;
  LoadedRun run;                          // a translation run; or, when `cloze` is set, empty
  std::unique_ptr<LoadedClozeRun> cloze;  // a cloze run (model.task: cloze): its reader answers questions
  std::mutex in_use;   // one translation at a time per model (record_attention switches the model's path)
};

// The upper estimate above, in bytes, for `source_tokens` tokens and a beam size.
int64_t answer_estimate_bytes(const LoadedRun& run, int64_t source_tokens, int64_t beam);

// The router of serve: quick answers at once, translations as jobs for the work queue.
HttpServer::Router explorer_router(std::vector<std::unique_ptr<ServedRun>>& runs, const std::string& page,
                                   const ExplorerApiOptions& options);

}  // namespace attnlab
