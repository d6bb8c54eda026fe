// json_fields.h — one number of a JSON request, read and bounded: what serve (src/cli/serve/explorer_api.cpp) and
// the browser build's engine (web/engine.cpp) take from a page's request, with one refusal in words for each field.
//
// A field may be absent (the fallback is used) or a number in its range; anything else — a string, null, a
// fraction where an integer is meant, a value outside [low, high] — is an attnlab::Error that names the field,
// the range and what was sent:  "temperature" must be a number from 0 to 10, got -1
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

namespace attnlab {

// body[name] as an integer in [low, high], or `fallback` when body has no `name`.
int64_t integer_field(const nlohmann::json& body, const char* name, int64_t fallback, int64_t low, int64_t high);

// body[name] as a number in [low, high] — (low, high] when low_open — or `fallback` when body has no `name`.
double number_field(const nlohmann::json& body, const char* name, double fallback, double low, double high,
                    bool low_open = false);

}  // namespace attnlab
