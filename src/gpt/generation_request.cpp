// generation_request.cpp — a page's request to continue a prompt, read and bounded (generation_request.h).
#include "gpt/generation_request.h"

#include <string>

#include "util/error.h"
#include "util/json_fields.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

GenerationAsk read_generation_ask(const nlohmann::json& body, const GenerationLimits& limits) {
  for (const char* name : {"beam", "ig_steps", "interventions"}) {
    if (body.contains(name)) {
      throw Error(std::string("a language model's run takes no \"") + name + "\": it continues the prompt as "
                  "\"max_tokens\", \"temperature\", \"top_k\", \"top_p\" and \"seed\" say");
    }
  }
  GenerationAsk ask;
  ask.max_tokens = integer_field(body, "max_tokens", 20, 0, limits.max_new_tokens);
  ask.sampling.temperature = number_field(body, "temperature", 0, 0, limits.max_temperature);
  ask.sampling.top_k = integer_field(body, "top_k", 0, 0, limits.max_top_k);
  ask.sampling.top_p = number_field(body, "top_p", 1, 0, 1, /*low_open=*/true);
  ask.seed = static_cast<uint64_t>(integer_field(body, "seed", 1, 0, limits.max_seed));
  return ask;
}

nlohmann::json limits_json(const GenerationLimits& limits) {
  return {{"new_tokens", limits.max_new_tokens}, {"temperature", limits.max_temperature},
          {"top_k", limits.max_top_k}, {"seed", limits.max_seed}};
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
