// explorer_api.h — what `attnlab serve` answers: the explorer page, the runs, and one sentence's attention.
//
//   GET  /                the explorer page (src/inspect/pages/explorer_page.h) with a form: no sentence yet, the
//                         limits below written into it (ask_limits()), and its Content-Security-Policy
//   GET  /api/runs        {"runs": ["runs/a", "b"]}: each run by its path relative to serve's working folder, or
//                         by its folder's name when it lies outside (shown_run_names()): never an absolute path
//   POST /api/translate   {"run": 0, "text": "a happy girl .", "beam": 1, "ig_steps": 16}  (all but "text"
//                         optional; beam 0 … 16, 0 by default: the run's own decode.beam; ig_steps 0 … 64, 0 by
//                         default: no gradient attribution in "flow"; "interventions": ["ablate:cross:1.3",
//                         "mask:source:2", "swap:decoder.0=300"], optional, src/run/intervention_spec.h — checkpoints
//                         of the run only — for the picture under them and, in "intervention", the plain
//                         translation and both log-probabilities: src/inspect/maps/intervention_maps.h)
//                         → the sentence's attention.json (the schema `attnlab attention` writes,
//                           docs/guide/explorer-and-serve.md): the translation, every map, the numbers behind
//                           each weight; for a cloze run (model.task: cloze) "text" is a question
//                           ("<document> @query <query>") and the answer cloze.json (src/inspect/maps/cloze_maps.h)
//                         A language model's run (model.task: language_model) continues "text" as a prompt:
//                         {"run": 1, "text": "the old", "max_tokens": 20, "temperature": 0, "top_k": 0, "top_p": 1,
//                         "seed": 1} (all but "text" optional; read by gpt/generation_request.h) → the text's
//                         attention.json (src/gpt/language_model_maps.h): "task": "language_model", its
//                         one stack's maps; "beam", "ig_steps" and "interventions" are refused for it, and the
//                         sampling fields for a translation run; /api/film and /api/contrast refuse it
//   POST /api/film        {"run": 0, "text": "…", "target": "the translation shown", "ig_steps": 0}
//                         → film.json (src/inspect/maps/film.h): the sentence forced on "target" at every step
//                           checkpoint of the run, for the page's film view; 413 when it would be over
//                           --max-answer-mb (film_estimate_bytes()), 400 for a run with no step checkpoints
//   POST /api/contrast    {"run": 0, "text": "…", "target": "…", "position": 2, "alternative": "grand"}
//                         → why the target has its token at that position and not "alternative"
//                           (src/cli/serve/contrast_api.h, src/inspect/maps/contrast.h)
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
//   numbers ≈ heads · (w · (encoder_layers · n² + decoder_layers · (m² + m · n))
//                      + d_k · (encoder_layers · 2n + decoder_layers · (3m + n)))   (q and k, once a token)
//             + 2 · beam · m² + n² + 3 · m · n + m²   (the beam's candidates; the flow: rollout, two attributions)
//   with w = 5 numbers a weight, d_k + 5 for additive attention (its tanh is d_k numbers a weight)
// at about 10 bytes a number in the JSON is compared with the limit (answer_estimate_bytes()).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cli/serve/http_server.h"
#include "cloze/cloze_training.h"
#include "gpt/generation_request.h"
#include "gpt/language_model.h"
#include "inspect/pages/explorer_page.h"
#include "run/intervention_spec.h"
#include "run/run.h"

namespace attnlab {

// What a request may ask for: the one place these numbers live (the page is told them: ask_limits()).
struct ExplorerApiOptions {
  int64_t max_text_bytes = 1000;
  int64_t max_answer_bytes = int64_t{64} << 20;
  int64_t max_beam = 16;       // "beam" 0 … max_beam
  int64_t max_ig_steps = 64;   // "ig_steps" 0 … max_ig_steps
  int64_t max_work = 0;        // the most work (work_estimate()) one client may have asked for at once; 0: no bound
  // A language model's run: its sampling fields' bounds (gpt/generation_request.h, the browser build's too).
  GenerationLimits generation;
};

struct ServedRun {
  std::string dir;
  std::string name;                       // how the page and every answer show it (shown_run_names())
  LoadedRun run;                          // a translation run; or, when `cloze` is set, empty
  std::unique_ptr<LoadedClozeRun> cloze;  // a cloze run (model.task: cloze): its reader answers questions
  std::unique_ptr<LoadedLanguageModel> language_model;   // a language model's run: it continues prompts
  std::mutex in_use;   // one translation at a time per model (record_attention switches the model's path)
  std::vector<std::unique_ptr<ServedRun>> copies;   // more copies of the model, one per translation at once
                                                    // (src/cli/serve/model_copies.h says why)
  SwapCheckpoints swap_checkpoints;   // checkpoints read for "interventions": swap:… (run/intervention_spec.h)
};

// The upper estimate above, in bytes, for `source_tokens` tokens and a beam size.
int64_t answer_estimate_bytes(const LoadedRun& run, int64_t source_tokens, int64_t beam);

// The work a translation asks for, an upper estimate in token passes (a token through every layer of the model
// once; backward counts 2), with n source tokens and m ≤ max_len_ratio · n + max_len_extra + 1 target tokens:
//   decoding       n + beam · m            (the encoder once, then each beam's step reads its cache)
//   the picture    n + m                   (the one teacher-forced pass)
//   attribution    3 · (ig_steps + 2) · m · (n + m)   (per target token, a forward and a backward pass of a batch
//                                          of ig_steps + 2 copies of the sentence pair: src/inspect/maps/flow.h)
// Serve counts it against the client's share (--max-client-work, work_queue.h). Attention's own cost, quadratic
// in the length, is left out: the projections and the feed-forward layers dominate at these lengths.
int64_t work_estimate(const LoadedRun& run, int64_t source_tokens, int64_t beam, int64_t ig_steps);

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
