// contrast_api.cpp — serve's POST /api/contrast (contrast_api.h): the request read and checked, then the job.
#include "cli/serve/contrast_api.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/serve/model_copies.h"
#include "inspect/maps/attention_maps.h"
#include "inspect/maps/contrast.h"
#include "inspect/maps/trace.h"
#include "util/error.h"
#include "util/json_fields.h"

namespace attnlab {

namespace {

struct ContrastRequest {
  ServedRun* served = nullptr;
  std::string text, target, alternative;
  int64_t position = 0, ig_steps = 16;
};

// body[name] as a string of 1 to `most` bytes; throws attnlab::Error naming the field otherwise.
std::string text_field(const nlohmann::json& body, const char* name, int64_t most, const char* what) {
  if (!body.contains(name) || !body[name].is_string() || body[name].get<std::string>().empty() ||
      static_cast<int64_t>(body[name].get<std::string>().size()) > most) {
    throw Error(std::string("\"") + name + "\" must be " + what + ": a string of 1 to " + std::to_string(most) +
                " bytes");
  }
  return body[name].get<std::string>();
}

ContrastRequest read_contrast_request(const std::string& request_body, std::vector<std::unique_ptr<ServedRun>>& runs,
                                      const ExplorerApiOptions& options) {
  const nlohmann::json body = nlohmann::json::parse(request_body, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    throw Error(
        "the request body is not a JSON object: send {\"text\": \"…\", \"target\": \"…\", \"position\": 2, "
        "\"alternative\": \"a token\"}");
  }
  ContrastRequest request;
  request.served =
      runs[static_cast<size_t>(integer_field(body, "run", 0, 0, static_cast<int64_t>(runs.size()) - 1))].get();
  if (request.served->cloze)
    throw Error("a cloze run has no decoding steps to contrast: the contrast is for translation runs");
  if (request.served->language_model) {
    throw Error(
        "a language model's run has no source words to attribute a choice to: the contrast is for translation runs");
  }
  request.text = text_field(body, "text", options.max_text_bytes, "the source sentence");
  request.target = text_field(body, "target", 4 * options.max_text_bytes, "the translation the page shows");
  request.alternative = text_field(body, "alternative", 200, "the token to contrast with the chosen one");
  if (!body.contains("position")) throw Error("\"position\" (the decoder position, from 0) is missing");
  request.position = integer_field(body, "position", 0, 0, 4 * options.max_text_bytes);
  request.ig_steps = integer_field(body, "ig_steps", std::min<int64_t>(16, options.max_ig_steps), 1,
                                   std::max<int64_t>(1, options.max_ig_steps));
  return request;
}

// The job: the pair recorded (forced on "target"), the question read against its translation, the contrast.
HttpAnswer answer_contrast(const ContrastRequest& request) {
  ModelLease lease(*request.served);  // a copy of the model for this request alone (model_copies.h)
  LoadedRun& run = lease.run().run;
  try {
    SentenceTrace trace;
    const AttentionPicture picture = record_attention(run, request.text, request.target, 1, 0, &trace);
    const ContrastQuestion question =
        contrast_question(std::to_string(request.position) + ":" + request.alternative, *run.tokenizers.tgt, picture);
    const std::vector<Contrast> contrasts = contrasts_of(run, picture, trace, {question}, request.ig_steps);
    return {200, "application/json", contrast_json(contrasts.at(0)).dump() + "\n", {}};
  } catch (const Error& e) {
    return json_error(400, e.what());
  }
}

}  // namespace

Routed contrast_route(const std::string& request_body, std::vector<std::unique_ptr<ServedRun>>& runs,
                      const ExplorerApiOptions& options) {
  ContrastRequest request;
  try {
    request = read_contrast_request(request_body, runs, options);
  } catch (const Error& e) {
    return {json_error(400, e.what()), {}};
  }
  // The answer: a few numbers per source token. The work: the recorded pass, then one forward and backward pass of
  // ig_steps + 2 copies of the pair (counted as serve's work_estimate() counts token passes).
  const auto tokens = static_cast<int64_t>(request.text.size() + request.target.size());  // more than either's tokens
  const int64_t answer_bytes = 40 * static_cast<int64_t>(request.text.size()) + 8192;
  const int64_t cost = tokens + 3 * (request.ig_steps + 2) * tokens;
  return {{}, [request] { return answer_contrast(request); }, answer_bytes, cost};
}

}  // namespace attnlab
