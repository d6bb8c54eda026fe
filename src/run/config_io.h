// config_io.h — reading a run's YAML config file, and writing the config a run actually used.
//
// A config file has five sections, each a mapping of keys (src/train/config.h; every key is documented in
// configs/README.md):
//
//   data:      { train_src: …, train_tgt: …, valid_src: …, … }
//   tokenizer: { kind: word, … }
//   model:     { d_model: 128, …, attention: { encoder: linear, decoder: {kind: scaled_dot, window: [2, 0]} } }
//   train:     { max_steps: 1500, lr: 1.0, … }
//   decode:    { beam: 4, … }
//
// Keys left out keep their defaults. Overrides from the command line (`--set train.max_steps=100`) are applied
// after the file; the part after '=' is read as YAML, so `model.attention.decoder.window=[2,0]` sets a list.
//
// Users copy configs and edit them, so every mistake ends in one attnlab::Error that names the key's full path,
// what was expected, what was found and where (file and line, or the --set it came from), with a "did you mean"
// for a mistyped key or kind.
#pragma once

#include <string>
#include <vector>

#include "run/config.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

// Reads, overrides and checks a config file. Throws attnlab::Error for a missing file, a YAML syntax error
// (with line and column), an unknown key, a wrong type, an out-of-range value or a contradiction between keys.
RunConfig load_config(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from text; source_name ("configs/copy.yaml", "test") starts every message.
RunConfig parse_config(const std::string& yaml_text, const std::string& source_name,
                       const std::vector<std::string>& overrides = {});

// The effective config as YAML: every key, defaults included, with its meaning as a comment. The trainer writes
// it into the run folder; parse_config(to_yaml(c), …) gives c back.
std::string to_yaml(const RunConfig& config);

// One row of the documentation: what configs/README.md must list (a test checks that it does).
struct ConfigKeyDoc {
  std::string path;           // "train.max_steps"; the attention keys once, as "model.attention.<use>.kind"
  std::string default_value;  // as written in YAML: "10000", "noam", "none", "\"\""
  std::string doc;            // one line
  std::string most;           // the largest value allowed ("1024"), or "" for none
};
std::vector<ConfigKeyDoc> config_key_docs();

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
