// config_keys.h — attnlab's table of config keys (config_keys.cpp), read and written by config_io.cpp.
#pragma once

#include <string>
#include <vector>

#include "run/config.h"
#include "run/config_table.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Every section and key of a config file, in the order to_yaml() writes them.
const config_table::Table& config_keys();

// The three uses of attention, as config sections name them: model.attention.encoder / .decoder / .cross.
extern const std::vector<std::string> attention_uses;
const AttentionConfig& attention_of(const RunConfig& config, const std::string& use);

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
