// explorer_api.cpp — the three routes of serve and the checks of a translation request (explorer_api.h).
#include "cli/serve/explorer_api.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cloze_question.h"
#include "inspect/maps/attention_maps.h"
#include "util/base64.h"
#include "util/error.h"
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

// An integer field of the request: `fallback` when absent; throws attnlab::Error when it is not an integer in
// [low, high].
int64_t integer_field(const nlohmann::json& body, const char* name, int64_t fallback, int64_t low, int64_t high) {
  if (!body.contains(name)) return fallback;
  const nlohmann::json& value = body[name];
  if (!value.is_number_integer() || value.get<int64_t>() < low || value.get<int64_t>() > high) {
    throw Error(std::string("\"") + name + "\" must be an integer from " + std::to_string(low) + " to " +
                std::to_string(high) + ", got " + value.dump());
  }
  return value.get<int64_t>();
}

// A request read and checked, everything but the translation itself.
struct TranslateRequest {
  ServedRun* served = nullptr;
  std::string text;
  int64_t beam = 0;
  int64_t ig_steps = 0;  // integrated gradients' steps (src/inspect/maps/flow.h); 0: no gradient attribution
};

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
  if (request.served->cloze) return request;  // a question: n · m numbers, small beside --max-text-bytes
  const LoadedRun& run = request.served->run;
  const auto tokens = static_cast<int64_t>(encode_text(run, *run.tokenizers.src, request.text, "text").size());
  const int64_t estimate = answer_estimate_bytes(run, tokens, beam_used(run, request.beam));
  if (estimate > options.max_answer_bytes) {
    char mib[32];
    std::snprintf(mib, sizeof mib, "%.1f", static_cast<double>(estimate) / (1 << 20));
    too_large = "the answer for this sentence (" + std::to_string(tokens) + " tokens) would be about " + mib +
                " MiB, more than the " + std::to_string(options.max_answer_bytes >> 20) +
                " MiB this server sends (--max-answer-mb): send a shorter sentence";
  }
  return request;
}

// The job of one translation request, on a worker: the sentence's attention.json (a cloze run: cloze.json), with
// the checkpoint shown as the page shows the run; a sentence the model cannot read is a 400.
HttpAnswer answer_translation(const TranslateRequest& translate) {
  ServedRun& served = *translate.served;
  std::lock_guard<std::mutex> lock(served.in_use);
  try {
    if (served.cloze) {
      ClozePicture picture = record_cloze_question(*served.cloze, translate.text, "\"text\"");
      picture.checkpoint = shown_checkpoint(served, picture.checkpoint);
      return {200, "application/json", cloze_json(picture), {}};
    }
    AttentionPicture picture = record_attention(served.run, translate.text, "", translate.beam, translate.ig_steps);
    picture.checkpoint = shown_checkpoint(served, picture.checkpoint);
    return {200, "application/json", attention_json(picture), {}};
  } catch (const Error& e) {
    return json_error(400, e.what());
  }
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
  const auto heads = static_cast<double>(model.heads);
  auto map_numbers = [&](double Tq, double Tk) { return heads * (5 * Tq * Tk + d_k * (Tq + Tk)); };
  const double numbers = static_cast<double>(model.encoder_layers) * map_numbers(n, n) +
                         static_cast<double>(model.decoder_layers) * (map_numbers(m, m) + map_numbers(m, n)) +
                         2.0 * static_cast<double>(std::max<int64_t>(1, beam)) * m * m + n * n + 3 * m * n + m * m;
  return static_cast<int64_t>(std::min(numbers * bytes_per_number, 9e18));
}

AskLimits ask_limits(const std::vector<std::unique_ptr<ServedRun>>& runs, const ExplorerApiOptions& options) {
  AskLimits limits{options.max_text_bytes, options.max_beam, options.max_ig_steps, options.max_answer_bytes >> 20, {}};
  for (const auto& served : runs) {
    std::vector<int64_t>& by_beam = limits.max_tokens.emplace_back();
    for (int64_t beam = 0; beam <= options.max_beam; ++beam) {
      by_beam.push_back(served->cloze ? -1 : most_tokens(served->run, beam_used(served->run, beam), options));
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
      return {{}, [translate] { return answer_translation(translate); }};
    }
    if (request.path == "/" || request.path == "/api/runs" || request.path == "/api/translate") {
      return {json_error(405, "method " + request.method + " is not allowed on " + request.path), {}};
    }
    return {json_error(404, "no such page: the explorer is at /"), {}};
  };
}

}  // namespace attnlab
