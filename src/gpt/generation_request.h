// generation_request.h — how a page asks a language model's run to continue a prompt: the request's sampling
// fields, read and bounded in one place for `attnlab serve` (src/cli/serve/explorer_api.cpp) and the browser
// build's engine (web/engine.cpp), so both take the same fields, refuse the same values in the same words, and
// continue the same prompt into the same text (language_model_maps.h, record_text_attention).
//
//   {"text": "the old", "max_tokens": 20, "temperature": 0, "top_k": 0, "top_p": 1, "seed": 1}
//   max_tokens    new tokens at most, 0 … max_new_tokens (20 by default; 0: the prompt alone)
//   temperature   τ in p = softmax(z / τ), 0 … max_temperature (0 by default: greedy; sampling.h)
//   top_k         draw among the k likeliest tokens, 0 … max_top_k (0 by default: every token)
//   top_p         the nucleus, in (0, 1] (1 by default: every token)
//   seed          the draws' seed, 0 … max_seed (1 by default): the same seed and settings, the same text
// All but "text" are optional; "text" itself is the caller's to read (serve bounds its bytes). A translation's
// fields ("beam", "ig_steps", "interventions") are refused by name: a language model has no source to translate.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "gpt/language_model_maps.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// What a request may ask for (serve writes them into its page, explorer_page.h's AskLimits; the engine tells the
// live page when it loads a language model).
struct GenerationLimits {
  int64_t max_new_tokens = 200;   // each new token adds a row and a column to every map the answer holds
  double max_temperature = 10;    // far past where the distribution is flat for any toy model
  int64_t max_top_k = 100000;     // beyond every vocabulary attnlab trains
  int64_t max_seed = 2147483647;  // 2³¹ − 1: a seed a page's number field holds exactly
};

// The sampling fields of `body` (a JSON object), checked against `limits`. Throws attnlab::Error naming the field,
// its range and the value sent, or the translation field a language model does not take.
GenerationAsk read_generation_ask(const nlohmann::json& body, const GenerationLimits& limits);

// The limits as the pages name them: {"new_tokens", "temperature", "top_k", "seed"} (generate.js reads these).
nlohmann::json limits_json(const GenerationLimits& limits);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
