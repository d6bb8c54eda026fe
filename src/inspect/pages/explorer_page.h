// explorer_page.h — the attention explorer: one self-contained page to ask the maps questions.
//
// `attnlab attention` writes it as index.html next to attention.json and the SVG files; `attnlab serve` hands
// out the same page and answers its requests for new sentences. The views (src/inspect/pages/explorer/explorer.js):
//   head view     query and key tokens in two columns, joined by one line per head whose opacity is the weight;
//                 hover a token to keep only its lines, click to pin it; encoder self, decoder self, cross, all
//   model view    every layer × head as a thumbnail with its attention entropy; click one to open it large
//   matrix view   heatmaps of every map and head, with the mean over heads and over layers
//   neuron view   for one query and each key, the numbers that made the weight (q, k, q⊙k, q·k, scaled, masked,
//                 normalised — or the kind's own stages: additive's tanh features, linear's φ(q)·φ(k), external's
//                 two normalisations, sagan's γ, a window's band, local_m/local_p's centre, window and Gaussian,
//                 hard's distribution and chosen key)
//   decoding view the translation token by token: the cross-attention row of each step, the five likeliest next
//                 tokens, and with beam search every hypothesis kept, finished or dropped
//   compare view  the same sentence through two runs, mean of heads per layer, side by side (attnlab attention
//                 --compare RUN2 writes both into the page; attnlab serve with two runs asks for both)
//   film view     training as a film: the sentence's maps, rollout and attributions at every step checkpoint, a
//                 slider and a play button, beside the loss curves and each view's AER against the gold
//   cloze view    for a cloze run (cloze.json, cloze_maps.h): α, β, β̄ and s of one question, and a word's numbers
// When the sentence has a gold alignment (src/inspect/align/gold_on_picture.h), every cross-attention, rollout and
// attribution picture outlines the gold links (sure solid, possible dashed) and names its AER (gold.js).
// Every view has a colour legend and says what its rows and columns are (a decoder row is named by the token it
// predicts); every control works from the keyboard with its ARIA role; only the shown view is drawn; the address
// holds the page's state (view, type, layer, head, …), and each view can be saved as an SVG picture.
// Everything it shows comes from attention.json (attention_maps.h): the maps, the stages of the same forward
// pass, and the decoder's distributions. Nothing is fetched from elsewhere: the page's HTML, CSS and JavaScript
// are the project's own files in src/inspect/pages/explorer/, read into the binary at build time
// (cmake/embed_text.cmake), and written inline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensor/real.h"  // ATTNLAB_PRECISION

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// What the page's form may send, when a server states it: `attnlab serve` writes the limits it enforces into the
// page (explorer_api.h, ask_limits()), so the form takes exactly what the server takes and says so beside the
// field (serve.js) instead of sending what will be refused. A page without them (the live page) checks nothing.
struct AskLimits {
  int64_t max_text_bytes = 0;        // the sentence, in UTF-8 bytes (--max-text-bytes)
  int64_t max_beam = 0;              // beam 0 … max_beam (0: the run's own decode.beam)
  int64_t max_ig_steps = 0;          // IG steps 0 … max_ig_steps
  int64_t max_answer_mb = 0;         // the largest answer sent (--max-answer-mb)
  // For each run, for each beam 0 … max_beam: the most source tokens whose answer stays within max_answer_mb,
  // or -1 where that limit does not bind below max_text_bytes (a cloze run, a small model).
  std::vector<std::vector<int64_t>> max_tokens;
  // A language model's run (model.task: language_model) continues a prompt instead (generate.js): per run, whether
  // it is one, and what its sampling fields take — max tokens 0 … max_new_tokens, temperature 0 … max_temperature,
  // top-k 0 … max_top_k, top-p in (0, 1], seed 0 … max_seed.
  std::vector<bool> language_model;
  int64_t max_new_tokens = 0, max_top_k = 0, max_seed = 0;
  double max_temperature = 0;
};

// The page. `attention_json`: the data of one sentence (attention_json(), or cloze_json()), or "" for a page that asks a server
// for it; `runs`: the runs a server offers (empty for a page on disk). A page on disk may hold a second run's data
// of the same sentence for its compare view: `compared_json`, with `compared_names` the two runs' names (the
// first run's, then the second's). `limits`: what a server accepts, for the form (none: the form checks nothing).
// `film_json`: the sentence at every step checkpoint of the run (film.json, src/inspect/maps/film.h), for the film
// view of a page on disk ("": none; a served page asks the server for it).
std::string explorer_page_html(const std::string& title, const std::string& attention_json,
                               const std::vector<std::string>& runs, const std::string& compared_json = "",
                               const std::vector<std::string>& compared_names = {},
                               const std::optional<AskLimits>& limits = std::nullopt,
                               const std::string& film_json = "");

// The page's one inline script, exactly as the page holds it (its scripts joined in order): a server names it by
// its SHA-256 in the page's Content-Security-Policy (explorer_page_policy(), src/cli/serve/explorer_api.h).
std::string explorer_script();

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
