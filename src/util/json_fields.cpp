// json_fields.cpp — a request's number fields, read and bounded (json_fields.h).
#include "util/json_fields.h"

#include <cstdio>
#include <string>

#include "util/error.h"

namespace attnlab {

int64_t integer_field(const nlohmann::json& body, const char* name, int64_t fallback, int64_t low, int64_t high) {
  if (!body.contains(name)) return fallback;
  const nlohmann::json& value = body[name];
  if (!value.is_number_integer() || value.get<int64_t>() < low || value.get<int64_t>() > high) {
    throw Error(std::string("\"") + name + "\" must be an integer from " + std::to_string(low) + " to " +
                std::to_string(high) + ", got " + value.dump());
  }
  return value.get<int64_t>();
}

double number_field(const nlohmann::json& body, const char* name, double fallback, double low, double high,
                    bool low_open) {
  if (!body.contains(name)) return fallback;
  const nlohmann::json& value = body[name];
  if (!value.is_number() || value.get<double>() > high || value.get<double>() < low ||
      (low_open && value.get<double>() == low)) {
    char range[80];
    std::snprintf(range, sizeof range, low_open ? "above %g and at most %g" : "from %g to %g", low, high);
    throw Error(std::string("\"") + name + "\" must be a number " + range + ", got " + value.dump());
  }
  return value.get<double>();
}

}  // namespace attnlab
