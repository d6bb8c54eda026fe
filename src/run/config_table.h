// config_table.h — a config file format written down as one table of keys, and the machinery that walks it.
//
// A table is a list of sections ("train", "model.attention.decoder"), each a list of keys. A key names the field
// of RunConfig it fills (the pointer's type says how the YAML value is read), the range a number must be in, the
// values a string may take, and one line of documentation. config_keys.cpp holds attnlab's table; the functions
// here know nothing of what its keys mean, so a key is added in one place and reading, writing and the
// documentation all follow. Reading goes in two steps:
//   1. yaml-cpp parses the text into a tree of nodes (a syntax error stops here, with line and column);
//   2. the tree is walked against the table: an unknown key (with a "did you mean"), a key set twice, a wrong
//      type or an out-of-range value stops with the key's full path and its line. An override `--set a.b.c=v`
//      becomes the tree {a: {b: {c: v}}} and goes through the same walk, so it gets exactly the same checks.
// Every message is one attnlab::Error that starts with where the text came from: the file, or "--set a.b.c=v".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "run/config.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace config_table {

// `none`, or [left, right]: three fields written as one key (model.attention.<use>.window).
struct Window {
  bool* on;
  int64_t* left;
  int64_t* right;
};

// A fixed choice read into an enum (util/choice.h): `names` are the config's words for its values, in order.
struct Choice {
  std::function<int()> get;
  std::function<void(int)> set;
  const std::vector<std::string>* names;
};
template <typename Enum>
Choice choice_of(Enum* field) {
  return {[field] { return static_cast<int>(*field); }, [field](int value) { *field = static_cast<Enum>(value); },
          &choice_names(*field)};
}

// Where a key's value lives in a RunConfig; the pointer's type says how the YAML value is read (a string is a
// file path; a word from a fixed list is a Choice).
using Field = std::variant<int64_t*, uint64_t*, double*, bool*, std::string*, Window, Choice>;

enum class Range {
  any,
  positive,      // > 0
  non_negative,  // ≥ 0
  below_one,     // in [0, 1): probabilities (dropout, label smoothing) and Adam's betas
};

struct Key {
  std::string name;                         // "max_steps"
  std::function<Field(RunConfig&)> field;   // &config.train.max_steps
  Range range = Range::any;
  std::string doc;                          // one line, for configs/README.md and the comments of to_yaml()
  double most = 0;                          // when > 0, the largest value a number may take: a size that would
                                            // otherwise reach an allocation or overflow unbounded
};

struct Section {
  std::string path;       // "train", "model.attention.decoder"
  std::vector<Key> keys;
};

// A single value where a mapping of keys is expected, read as the value of one or more keys:
// `model.attention.decoder: linear` means `model.attention.decoder: {kind: linear}`.
struct Shorthand {
  std::string path;                            // where the value may stand: "model.attention"
  std::vector<std::string> keys;               // the keys it sets, as full paths: "model.attention.encoder.kind", …
  std::string what;                            // what the value is, for messages: "an attention kind"
  std::map<std::string, std::string> refused;  // values that may not stand here, and why
};

// A key that was renamed: a config that still has it loads, its value read (mapped) into the key that replaced it,
// with one line saying so (a run folder's config.yaml written before the rename, a config a user copied then).
struct Renamed {
  std::string to;                              // the full path of the key that replaced it: "model.path"
  std::map<std::string, std::string> values;   // old value → new value: "reference" → "paper"
};

struct Table {
  std::vector<Section> sections;               // in the order to_yaml() writes them
  std::map<std::string, std::string> not_keys; // full paths that look like keys but are not, and why
  std::map<std::string, Renamed> renamed;      // full paths of old keys
  std::vector<Shorthand> shorthands;
};

// Where each key the user set came from ("train.lr" → "line 12" or "--set train.lr=0.1"), so that a message
// about keys that depend on each other can point at them.
using SetAt = std::map<std::string, std::string>;

// Parses `yaml_text` and reads it into `config`, key by key; source_name ("configs/copy.yaml") starts every
// message. Throws attnlab::Error for a syntax error, an unknown key, a wrong type or an out-of-range value.
void read_yaml(const Table& table, const std::string& yaml_text, const std::string& source_name, RunConfig& config,
               SetAt& set_at);

// Reads one override, "model.attention.decoder.window=[2,0]" (the part after '=' is YAML), into `config`.
void read_override(const Table& table, const std::string& text, RunConfig& config, SetAt& set_at);

// Every section and key of the table with its value in `config`, and each key's doc as a comment.
std::string write_yaml(const Table& table, const RunConfig& config);

// A field's value as it is written in a config file: 10000, 1e-9, true, noam, [2, 0] (strings unquoted).
std::string value_text(const Field& field);

}  // namespace config_table
}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
