// explorer_api.cpp — the three routes of serve and the checks of a translation request (explorer_api.h).
#include "cli/serve/explorer_api.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cloze_question.h"
#include "cli/serve/contrast_api.h"
#include "cli/serve/model_copies.h"
#include "gpt/language_model_maps.h"
#include "inspect/align/gold_on_picture.h"
#include "inspect/maps/attention_maps.h"
#include "inspect/maps/film.h"
#include "inspect/maps/intervention_maps.h"
#include "run/intervention_spec.h"
#include "util/base64.h"
#include "util/error.h"
#include "util/json_fields.h"
#include "util/sha256.h"

namespace attnlab {

namespace {

constexpr int64_t bytes_per_number = 10;  // "0.1234," and the like; labels and keys are small beside them

// The beam size a request's "beam" means: 0 asks for the run's own (decode.beam).
int64_t beam_used(const LoadedRun& run, int64_t beam) { return beam > 0 ? beam : run.config.decode.beam; }

// The most source tokens whose answer estimate is within the limit, or -1 when the limit does not bind below
// 2 tokens a byte of the longest text accepted (more than any tokenizer makes of it).
int64_t most_tokens(const LoadedRun& run, int64_t beam, const ExplorerApiOptions& options) {
  int64_t fits = 0, too_many = 2 * options.max_text_bytes + 2;   // estimate(fits) ≤ limit < estimate(too_many)
  if (answer_estimate_bytes(run, too_many, beam) <= options.max_answer_bytes) return -1;
  while (too_many - fits > 1) {
    const int64_t middle = (fits + too_many) / 2;
    if (answer_estimate_bytes(run, middle, beam) <= options.max_answer_bytes) {
      fits = middle;
    } else {
      too_many = middle;
    }
  }
  return fits;
}

// A path as a visitor may see it: relative to the working folder when inside it, else its last name.
std::string shown_path(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) return "";   // nothing to show (fs::absolute would throw)
  std::error_code error;
  const fs::path full = fs::weakly_canonical(fs::absolute(path), error).lexically_normal();
  const fs::path inside = full.lexically_relative(fs::current_path(error));
  if (!inside.empty() && *inside.begin() != ".." && inside != ".") return inside.generic_string();
  return (full.has_filename() ? full.filename() : full.parent_path().filename()).string();
}

// The checkpoint a picture names, shown as the run's shown name and the file's place in the run.
std::string shown_checkpoint(const ServedRun& served, const std::string& checkpoint) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path run = fs::weakly_canonical(served.dir, error);
  const fs::path in_run = fs::weakly_canonical(checkpoint, error).lexically_relative(run);
  if (!in_run.empty() && *in_run.begin() != "..") return served.name + "/" + in_run.generic_string();
  return shown_path(checkpoint);
}

// A request read and checked, everything but the translation itself.
struct TranslateRequest {
  ServedRun* served = nullptr;
  std::string text;
  int64_t beam = 0;
  int64_t ig_steps = 0;  // integrated gradients' steps (src/inspect/maps/flow.h); 0: no gradient attribution
  std::vector<std::string> interventions;   // SPECs (src/run/intervention_spec.h); none: the plain picture
  int64_t answer_bytes = 0;  // an upper bound of the answer's size (reserved in serve's answer budget)
  int64_t cost = 1;          // its work (work_estimate()), counted against its client's share
  GenerationAsk generation;  // a language model's run: how the prompt ("text") is continued
};

// A language model's request: the sampling fields read as the browser build reads them (gpt/generation_request.h),
// and its price: the answer grows as the text's T = prompt + max_tokens tokens, T² a map, as a translation's does.
void read_generation_request(const nlohmann::json& body, const ExplorerApiOptions& options, TranslateRequest& request) {
  request.generation = read_generation_ask(body, options.generation);
  const GenerationAsk& ask = request.generation;
  const LoadedLanguageModel& run = *request.served->language_model;
  const ModelConfig& model = run.config.model;
  const auto T = static_cast<double>(prompt_ids(run, request.text).size() + ask.max_tokens);
  const double d_k = static_cast<double>(model.d_model) / static_cast<double>(std::max<int64_t>(1, model.heads));
  const double per_weight = model.decoder_attention.kind == AttentionKind::additive ? 5 + d_k : 5;
  const double numbers = static_cast<double>(model.decoder_layers * model.heads) * (per_weight * T * T + 2 * d_k * T) +
                         2 * T * T;                                           // the maps, then the rollout
  request.answer_bytes = static_cast<int64_t>(std::min(numbers * bytes_per_number, 9e18));
  request.cost = static_cast<int64_t>(2 * T);                                 // generating, then the one pass
}

// What a request will cost: the answer's bound and the work, set in `request`; the 413's message in `too_large`
// when either is over its limit. A question to a cloze run: n · m numbers for n + m ≤ its bytes, and little work.
void price_request(TranslateRequest& request, int64_t tokens, const ExplorerApiOptions& options,
                   std::string& too_large) {
  if (request.served->cloze) {
    const auto half = static_cast<int64_t>(request.text.size()) / 2 + 2;
    request.answer_bytes = std::min(options.max_answer_bytes, bytes_per_number * half * half + (64 << 10));
    return;
  }
  const LoadedRun& run = request.served->run;
  const int64_t beam = beam_used(run, request.beam);
  request.answer_bytes = answer_estimate_bytes(run, tokens, beam);
  request.cost = work_estimate(run, tokens, beam, request.ig_steps) * (request.interventions.empty() ? 1 : 2);
  char mib[32];
  std::snprintf(mib, sizeof mib, "%.1f", static_cast<double>(request.answer_bytes) / (1 << 20));
  if (request.answer_bytes > options.max_answer_bytes) {
    too_large = "the answer for this sentence (" + std::to_string(tokens) + " tokens) would be about " + mib +
                " MiB, more than the " + std::to_string(options.max_answer_bytes >> 20) +
                " MiB this server sends (--max-answer-mb): send a shorter sentence";
  } else if (options.max_work > 0 && request.cost > options.max_work) {
    too_large = "this request (" + std::to_string(tokens) + " tokens, beam " + std::to_string(beam) + ", ig_steps " +
                std::to_string(request.ig_steps) + ") is about " + std::to_string(request.cost) +
                " token passes of work, more than the " + std::to_string(options.max_work) +
                " one client may ask for at once (--max-client-work): ask for fewer ig_steps or send a shorter "
                "sentence";
  }
}

// "interventions": absent, or an array of at most 64 SPEC strings of at most 200 bytes (read when translating).
std::vector<std::string> interventions_field(const nlohmann::json& body) {
  if (!body.contains("interventions")) return {};
  const nlohmann::json& value = body["interventions"];
  if (!value.is_array() || value.size() > 64) throw Error("\"interventions\" must be an array of at most 64 strings");
  std::vector<std::string> specs;
  for (const nlohmann::json& spec : value) {
    if (!spec.is_string() || spec.get<std::string>().size() > 200) {
      throw Error("\"interventions\" holds " + spec.dump().substr(0, 60) + ", not a string like \"ablate:cross:0.1\"");
    }
    specs.push_back(spec.get<std::string>());
  }
  return specs;
}

// Throws attnlab::Error (a 400) for what the request gets wrong; returns 413's message in `too_large` instead
// when the answer would be over the limit.
TranslateRequest read_translate_request(const std::string& request_body, std::vector<std::unique_ptr<ServedRun>>& runs,
                                        const ExplorerApiOptions& options, std::string& too_large) {
  const nlohmann::json body = nlohmann::json::parse(request_body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    throw Error(
        "the request body is not a JSON object (or not valid UTF-8): send {\"text\": \"a sentence\", "
        "\"run\": 0, \"beam\": 1}");
  }
  if (!body.contains("text") || !body["text"].is_string()) throw Error("\"text\" (a string) is missing");
  TranslateRequest request;
  request.text = body["text"].get<std::string>();
  if (request.text.find_first_not_of(" \t\r\n") == std::string::npos) throw Error("\"text\" is empty: type a sentence");
  if (static_cast<int64_t>(request.text.size()) > options.max_text_bytes) {
    throw Error("\"text\" has " + std::to_string(request.text.size()) + " bytes, more than the " +
                std::to_string(options.max_text_bytes) + " this server accepts (--max-text-bytes)");
  }
  const int64_t r = integer_field(body, "run", 0, 0, static_cast<int64_t>(runs.size()) - 1);
  request.beam = integer_field(body, "beam", 0, 0, options.max_beam);
  request.ig_steps = integer_field(body, "ig_steps", 0, 0, options.max_ig_steps);
  request.served = runs[static_cast<size_t>(r)].get();
  if (request.served->language_model) {
    read_generation_request(body, options, request);
    if (request.answer_bytes > options.max_answer_bytes) {
      too_large = "the answer for this text would be about " + std::to_string(request.answer_bytes >> 20) +
                  " MiB, more than the " + std::to_string(options.max_answer_bytes >> 20) +
                  " MiB this server sends (--max-answer-mb): ask for fewer \"max_tokens\" or a shorter prompt";
    }
    return request;
  }
  for (const char* name : {"max_tokens", "temperature", "top_k", "top_p", "seed"}) {
    if (body.contains(name)) {
      throw Error(std::string("\"") + name + "\" is for a language model's run; this run translates (\"beam\", "
                  "\"ig_steps\")");
    }
  }
  request.interventions = interventions_field(body);
  if (request.served->cloze && !request.interventions.empty()) throw Error("a cloze run takes no \"interventions\"");
  const LoadedRun& run = request.served->run;
  const auto tokens = request.served->cloze
                          ? int64_t{0}
                          : static_cast<int64_t>(encode_text(run, *run.tokenizers.src, request.text, "text").size());
  price_request(request, tokens, options, too_large);
  return request;
}

// A translation request with "interventions" (src/model/intervention.h): the picture under them, with the plain
// translation and both log-probabilities (intervention_maps.h). Checkpoints only of the run (no path), and an error
// shows the run by its shown name.
HttpAnswer answer_intervention(ServedRun& served, const TranslateRequest& translate) {
  try {
    const Intervention intervention =
        read_interventions(translate.interventions, served.run, served.dir, "\"interventions\":", false,
                           &served.swap_checkpoints);
    AttentionPicture picture = record_intervention(served.run, translate.text, intervention, translate.beam,
                                                   translate.ig_steps);
    const ScoredTranslation original = scored_translation(served.run, translate.text, translate.beam);
    picture.checkpoint = shown_checkpoint(served, picture.checkpoint);
    return {200, "application/json", intervention_json(picture, original, translate.interventions, intervention), {}};
  } catch (const Error& e) {
    std::string message = e.what();
    for (size_t at = message.find(served.dir); !served.dir.empty() && at != std::string::npos;
         at = message.find(served.dir, at + served.name.size())) {
      message.replace(at, served.dir.size(), served.name);   // the run by its shown name, never its disk path
    }
    return json_error(400, message);
  }
}

// The job of one translation request, on a worker: the sentence's attention.json (a cloze run: cloze.json), with
// the checkpoint shown as the page shows the run; a sentence the model cannot read is a 400.
HttpAnswer answer_translation(const TranslateRequest& translate) {
  ModelLease lease(*translate.served);   // a copy of the model for this translation alone (model_copies.h)
  ServedRun& served = lease.run();
  try {
    if (served.cloze) {
      ClozePicture picture = record_cloze_question(*served.cloze, translate.text, "\"text\"");
      picture.checkpoint = shown_checkpoint(served, picture.checkpoint);
      return {200, "application/json", cloze_json(picture), {}};
    }
    if (served.language_model) {   // a prompt continued, and the maps of the whole text
      AttentionPicture picture = record_text_attention(*served.language_model, translate.text, translate.generation);
      picture.checkpoint = shown_checkpoint(served, picture.checkpoint);
      return {200, "application/json", attention_json(picture), {}};
    }
    if (!translate.interventions.empty()) return answer_intervention(served, translate);
    AttentionPicture picture = record_attention(served.run, translate.text, "", translate.beam, translate.ig_steps);
    picture.checkpoint = shown_checkpoint(served, picture.checkpoint);
    picture.gold = find_gold(served.run, picture);   // the outlines of a corpus sentence (gold_on_picture.h)
    picture.gold.alignment_file = shown_path(picture.gold.alignment_file);
    return {200, "application/json", attention_json(picture), {}};
  } catch (const Error& e) {
    return json_error(400, e.what());
  }
}

// POST /api/film {"run", "text", "target", "ig_steps"}: the sentence forced on "target" at every step checkpoint
// of the run (src/inspect/maps/film.h), as a job; 400 for what the request gets wrong, 413 over the answer limit.
Routed film_route(const std::string& request_body, std::vector<std::unique_ptr<ServedRun>>& runs,
                  const ExplorerApiOptions& options) {
  std::string too_large, target;
  TranslateRequest film;
  try {
    film = read_translate_request(request_body, runs, options, too_large);
    if (film.served->cloze) throw Error("a cloze run has no film: the film view is for translation runs");
    if (film.served->language_model) throw Error("a language model's run has no film: the film view is for translation runs");
    const nlohmann::json body = nlohmann::json::parse(request_body);
    if (!body.contains("target") || !body["target"].is_string() || body["target"].get<std::string>().empty() ||
        static_cast<int64_t>(body["target"].get<std::string>().size()) > 4 * options.max_text_bytes) {
      throw Error("\"target\" must be the translation every frame is forced on: a string of 1 to " +
                  std::to_string(4 * options.max_text_bytes) + " bytes");
    }
    target = body["target"].get<std::string>();
    const LoadedRun& run = film.served->run;
    const auto frames = static_cast<int64_t>(film_checkpoints(film.served->dir).size());
    const auto n = static_cast<int64_t>(encode_text(run, *run.tokenizers.src, film.text, "text").size());
    const auto m = static_cast<int64_t>(encode_text(run, *run.tokenizers.tgt, target, "target").size()) + 1;
    film.answer_bytes = film_estimate_bytes(run, frames, n, m);
    film.cost = frames * work_estimate(run, n, 1, film.ig_steps);
  } catch (const Error& e) {
    std::string message = e.what();   // the run by its shown name, never its folder on this disk
    const std::string dir = film.served ? film.served->dir : "", name = film.served ? film.served->name : "";
    for (size_t at = dir.empty() ? std::string::npos : message.find(dir); at != std::string::npos;
         at = message.find(dir, at + name.size())) {
      message.replace(at, dir.size(), name);
    }
    return {json_error(400, message), {}};
  }
  if (film.answer_bytes > options.max_answer_bytes) {
    return {json_error(413, "the film of this sentence would be about " + std::to_string(film.answer_bytes >> 20) +
                                " MiB, more than the " + std::to_string(options.max_answer_bytes >> 20) +
                                " MiB this server sends (--max-answer-mb): send a shorter sentence"), {}};
  }
  return {{}, [film, target] {
    try {
      Film recorded = record_film(film.served->dir, film.served->name, film.text, target, film.ig_steps);
      recorded.gold.alignment_file = shown_path(recorded.gold.alignment_file);
      return HttpAnswer{200, "application/json", film_json(recorded), {}};
    } catch (const Error& e) {
      return json_error(400, e.what());
    }
  }, film.answer_bytes, film.cost};
}

}  // namespace

int64_t answer_estimate_bytes(const LoadedRun& run, int64_t source_tokens, int64_t beam) {
  const ModelConfig& model = run.config.model;
  const DecodeConfig& decode = run.config.decode;
  const auto n = static_cast<double>(source_tokens);
  const double m = std::max(1.0, decode.max_len_ratio * n + static_cast<double>(decode.max_len_extra)) + 1;
  const double d_k = static_cast<double>(model.d_model) / static_cast<double>(std::max<int64_t>(1, model.heads));
  // A map of Tq × Tk weights per head: for each weight, the weight, its value norm, its score and a few stages
  // (about 5 numbers); for each token, the neuron view's q or k, d_k features (q_i ⊙ k_j is made in the page,
  // never sent). Then the beam's candidates, and the flow: rollout [n, n] + [m, n] + [m, m], two attributions
  // [m, n]. m is the longest translation decoding allows, so this is a bound, not a guess.
  // Additive attention shows its tanh(W q_i + U k_j) too: d_k numbers more for each weight.
  const auto heads = static_cast<double>(model.heads);
  auto map_numbers = [&](double Tq, double Tk, const AttentionConfig& attention) {
    const double per_weight = attention.kind == AttentionKind::additive ? 5 + d_k : 5;
    return heads * (per_weight * Tq * Tk + d_k * (Tq + Tk));
  };
  const double numbers = static_cast<double>(model.encoder_layers) * map_numbers(n, n, model.encoder_attention) +
                         static_cast<double>(model.decoder_layers) *
                             (map_numbers(m, m, model.decoder_attention) + map_numbers(m, n, model.cross_attention)) +
                         2.0 * static_cast<double>(std::max<int64_t>(1, beam)) * m * m + n * n + 3 * m * n + m * m;
  return static_cast<int64_t>(std::min(numbers * bytes_per_number, 9e18));
}

int64_t work_estimate(const LoadedRun& run, int64_t source_tokens, int64_t beam, int64_t ig_steps) {
  const DecodeConfig& decode = run.config.decode;
  const auto n = static_cast<double>(source_tokens);
  const double m = std::max(1.0, decode.max_len_ratio * n + static_cast<double>(decode.max_len_extra)) + 1;
  const double passes = n + static_cast<double>(std::max<int64_t>(1, beam)) * m + (n + m) +
                        3.0 * static_cast<double>(ig_steps > 0 ? ig_steps + 2 : 0) * m * (n + m);
  return static_cast<int64_t>(std::min(passes, 9e18));
}

AskLimits ask_limits(const std::vector<std::unique_ptr<ServedRun>>& runs, const ExplorerApiOptions& options) {
  AskLimits limits;
  limits.max_text_bytes = options.max_text_bytes, limits.max_beam = options.max_beam;
  limits.max_ig_steps = options.max_ig_steps, limits.max_answer_mb = options.max_answer_bytes >> 20;
  limits.max_new_tokens = options.generation.max_new_tokens, limits.max_temperature = options.generation.max_temperature;
  limits.max_top_k = options.generation.max_top_k, limits.max_seed = options.generation.max_seed;
  for (const auto& served : runs) {
    limits.language_model.push_back(served->language_model != nullptr);
    std::vector<int64_t>& by_beam = limits.max_tokens.emplace_back();
    for (int64_t beam = 0; beam <= options.max_beam; ++beam) {
      const bool no_source = served->cloze || served->language_model;
      by_beam.push_back(no_source ? -1 : most_tokens(served->run, beam_used(served->run, beam), options));
    }
  }
  return limits;
}

std::vector<std::string> shown_run_names(const std::vector<std::string>& dirs) {
  std::vector<std::string> names;
  std::set<std::string> taken;
  for (const std::string& dir : dirs) {
    const std::string shown = shown_path(dir);
    std::string name = shown;
    for (int copy = 2; taken.count(name) > 0; ++copy) name = shown + " (" + std::to_string(copy) + ")";
    taken.insert(name);
    names.push_back(name);
  }
  return names;
}

// Nothing loads from anywhere (default-src 'none'); the one inline script runs because its SHA-256 is named, and
// no other script would; inline styles and style attributes are allowed (the views colour cells with them); images
// are data: (the model view's thumbnails, the favicon); fetch() reaches this server only; the form is never sent
// by the browser itself (serve.js sends it), no <base> may move the page's links, and no page may frame it.
std::string explorer_page_policy() {
  const std::array<uint8_t, 32> digest = sha256(explorer_script());
  const std::string hash = base64(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
  return "default-src 'none'; script-src 'sha256-" + hash + "'; style-src 'unsafe-inline'; img-src data:; "
         "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";
}

HttpServer::Router explorer_router(std::vector<std::unique_ptr<ServedRun>>& runs, const std::string& page,
                                   const ExplorerApiOptions& options) {
  std::vector<std::string> names;
  for (const auto& served : runs) names.push_back(served->name);
  const std::string runs_json = nlohmann::json{{"runs", names}}.dump();
  const HttpAnswer page_answer{200, "text/html; charset=utf-8", page,
                               {{"Content-Security-Policy", explorer_page_policy()}}};
  return [&runs, page_answer, options, runs_json](const HttpRequest& request) -> Routed {
    const bool get = request.method == "GET" || request.method == "HEAD";
    if (request.path == "/" && get) return {page_answer, {}};
    if (request.path == "/api/runs" && get) return {{200, "application/json", runs_json, {}}, {}};
    if (request.path == "/api/translate" && request.method == "POST") {
      std::string too_large;
      TranslateRequest translate;
      try {
        translate = read_translate_request(request.body, runs, options, too_large);
      } catch (const Error& e) {
        return {json_error(400, e.what()), {}};
      }
      if (!too_large.empty()) return {json_error(413, too_large), {}};
      return {{}, [translate] { return answer_translation(translate); }, translate.answer_bytes, translate.cost};
    }
    if (request.path == "/api/film" && request.method == "POST") return film_route(request.body, runs, options);
    if (request.path == "/api/contrast" && request.method == "POST") return contrast_route(request.body, runs, options);
    if (request.path == "/" || request.path == "/api/runs" || request.path == "/api/translate" ||
        request.path == "/api/film" || request.path == "/api/contrast") {
      return {json_error(405, "method " + request.method + " is not allowed on " + request.path), {}};
    }
    return {json_error(404, "no such page: the explorer is at /"), {}};
  };
}

}  // namespace attnlab
