// config_table.cpp — the machinery of config_table.h: a YAML tree walked against a table of keys, values
// checked and stored into typed fields, overrides turned into trees, and the table written back out as YAML.
// The table itself, attnlab's list of keys, is in config_keys.cpp.
#include "run/config_table.h"

#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <sstream>

#include "util/error.h"
#include "util/quote.h"
#include "util/suggest.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {
namespace config_table {
namespace {

// ---- Finding keys in the table -----------------------------------------------------------------------------

std::string child_path(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

const Section* section_at(const Table& table, const std::string& path) {
  for (const Section& s : table.sections) {
    if (s.path == path) return &s;
  }
  return nullptr;
}

const Key* key_at(const Table& table, const std::string& section_path, const std::string& name) {
  if (const Section* s = section_at(table, section_path)) {
    for (const Key& k : s->keys) {
      if (k.name == name) return &k;
    }
  }
  return nullptr;
}

// What may appear inside `path` ("" is the file's top level): the section's own keys, then the next component
// of every deeper section ("model" → …, "attention"; "model.attention" → "encoder", "decoder", "cross").
std::vector<std::string> children(const Table& table, const std::string& path) {
  std::vector<std::string> names;
  auto add = [&names](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  if (const Section* s = section_at(table, path)) {
    for (const Key& k : s->keys) add(k.name);
  }
  const std::string prefix = path.empty() ? "" : path + ".";
  for (const Section& s : table.sections) {
    if (s.path.size() > prefix.size() && s.path.compare(0, prefix.size(), prefix) == 0) {
      std::string rest = s.path.substr(prefix.size());
      add(rest.substr(0, rest.find('.')));
    }
  }
  return names;
}

const Shorthand* shorthand_at(const Table& table, const std::string& path) {
  for (const Shorthand& s : table.shorthands) {
    if (s.path == path) return &s;
  }
  return nullptr;
}

// ---- Values as text ----------------------------------------------------------------------------------------

// The shortest text that reads back as the same double: 0.1, 1e-9, 4000.
std::string number_text(double value) {
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, end);
  for (const char* padded : {"e-0", "e+0"}) {   // to_chars writes 1e-09; YAML and people prefer 1e-9
    if (auto at = text.find(padded); at != std::string::npos) text.erase(at + 2, 1);
  }
  if (auto at = text.find("e+"); at != std::string::npos) text.erase(at + 1, 1);
  return text;
}

// How a value is shown in a message: as it was written ('fast', '[2]', '{a: 1}'), or "nothing" when empty.
std::string shown(const YAML::Node& node) {
  if (node.IsNull()) return "nothing";
  if (node.IsScalar()) return quote(node.Scalar(), '\'');
  YAML::Emitter flow;
  flow << YAML::Flow << node;
  return "'" + shorten(flow.c_str()) + "'";
}

template <typename Integer>
std::optional<Integer> whole_number(const std::string& text) {
  Integer value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> finite_number(const std::string& text) {
  double value = 0;
  const char* begin = text.data();
  if (!text.empty() && text[0] == '+') ++begin;     // from_chars does not take a leading '+'
  auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// What a key's value must be, for messages: "a whole number > 0", "a number > 0 and at most 10", "one of adam,
// adamw".
std::string expectation(const Field& field, const Key& key) {
  const bool whole = std::holds_alternative<int64_t*>(field);
  if (whole || std::holds_alternative<double*>(field)) {
    const std::string kind = whole ? "a whole number" : "a number";
    const std::string most = key.most > 0 ? " and at most " + number_text(key.most) : "";
    switch (key.range) {
      case Range::any: return kind + most;
      case Range::positive: return kind + " > 0" + most;
      case Range::non_negative: return kind + " ≥ 0" + most;
      case Range::below_one: return kind + " in [0, 1)";
    }
  }
  if (std::holds_alternative<uint64_t*>(field)) return "a whole number ≥ 0";
  if (std::holds_alternative<bool*>(field)) return "true or false";
  if (std::holds_alternative<Window>(field)) {
    return "none or [left, right] with two whole numbers ≥ 0 (e.g. [2, 0]: two keys back, none ahead)";
  }
  if (auto choice = std::get_if<Choice>(&field)) return "one of " + join(*choice->names);
  return "a file path";
}

bool in_range(double value, Range range, double most = 0) {
  if (most > 0 && value > most) return false;
  switch (range) {
    case Range::any: return true;
    case Range::positive: return value > 0;
    case Range::non_negative: return value >= 0;
    case Range::below_one: return value >= 0 && value < 1;
  }
  return false;
}

// Parses `node` as the field's type, checks the key's range or words, and stores it. False when it does not fit.
bool store(const YAML::Node& node, const Field& field, const Key& key) {
  if (const Window* window = std::get_if<Window>(&field)) {     // none, or [left, right]
    if (node.IsNull() || (node.IsScalar() && node.Scalar() == "none")) {
      *window->on = false;
      *window->left = *window->right = 0;
      return true;
    }
    if (!node.IsSequence() || node.size() != 2 || !node[0].IsScalar() || !node[1].IsScalar()) return false;
    std::optional<int64_t> left = whole_number<int64_t>(node[0].Scalar());
    std::optional<int64_t> right = whole_number<int64_t>(node[1].Scalar());
    if (!left || !right || *left < 0 || *right < 0) return false;
    *window->on = true;
    *window->left = *left;
    *window->right = *right;
    return true;
  }
  if (auto text = std::get_if<std::string*>(&field)) {                  // a path: empty = not given
    if (node.IsNull()) **text = "";
    if (node.IsScalar()) **text = node.Scalar();
    return node.IsNull() || node.IsScalar();
  }
  if (!node.IsScalar()) return false;
  const std::string& scalar = node.Scalar();
  if (auto p = std::get_if<int64_t*>(&field)) {
    std::optional<int64_t> value = whole_number<int64_t>(scalar);
    if (!value || !in_range(static_cast<double>(*value), key.range, key.most)) return false;
    **p = *value;
  } else if (auto p = std::get_if<uint64_t*>(&field)) {        // train.seed: any 64-bit number ≥ 0
    std::optional<uint64_t> value = whole_number<uint64_t>(scalar);
    if (!value) return false;
    **p = *value;
  } else if (auto p = std::get_if<double*>(&field)) {
    std::optional<double> value = finite_number(scalar);
    if (!value || !in_range(*value, key.range, key.most)) return false;
    **p = *value;
  } else if (auto p = std::get_if<bool*>(&field)) {
    if (scalar == "true" || scalar == "True" || scalar == "yes" || scalar == "on") {
      **p = true;
    } else if (scalar == "false" || scalar == "False" || scalar == "no" || scalar == "off") {
      **p = false;
    } else {
      return false;
    }
  } else {                                                       // a Choice: the enum value its word names
    const Choice& choice = std::get<Choice>(field);
    const auto found = std::find(choice.names->begin(), choice.names->end(), scalar);
    if (found == choice.names->end()) return false;
    choice.set(static_cast<int>(found - choice.names->begin()));
  }
  return true;
}

// ---- Reading -----------------------------------------------------------------------------------------------

// Walks a tree of YAML nodes against the table, filling a RunConfig. One Reader per source: the file, or one
// --set override. It remembers where each key was set (SetAt), for messages about keys that depend on each other.
class Reader {
 public:
  Reader(const Table& table, RunConfig& config, SetAt& set_at, std::string source, bool has_lines)
      : table_(table), config_(config), set_at_(set_at), source_(std::move(source)), has_lines_(has_lines) {}

  // `node` holds the contents of `path` ("" = the whole file, "train", "model.attention", …).
  void read_group(const std::string& path, const YAML::Node& node) {
    if (node.IsNull()) return;                        // "decode:" with everything under it commented out
    const Shorthand* shorthand = shorthand_at(table_, path);
    if (node.IsScalar() && shorthand) return read_shorthand(*shorthand, node);   // model.attention.decoder: linear
    if (!node.IsMap()) {
      const std::string shorthand_or = shorthand ? shorthand->what + " or " : "";
      fail((path.empty() ? std::string("the file") : path) + ": expected " + shorthand_or + "a mapping of keys (" +
           join(children(table_, path)) + "), got " + shown(node) + line(node));
    }
    std::map<std::string, int> line_of;               // the keys read so far in this mapping, and their lines
    for (const auto& entry : node) {
      const YAML::Node& name_node = entry.first;
      if (!name_node.IsScalar()) fail(child_path(path, "?") + ": a key must be a plain name" + line(name_node));
      const std::string name = name_node.Scalar();
      const int this_line = name_node.Mark().line + 1;
      if (auto earlier = line_of.find(name); earlier != line_of.end()) {
        const std::string lines =
            " (lines " + std::to_string(earlier->second) + " and " + std::to_string(this_line) + ")";
        const bool is_section = !children(table_, child_path(path, name)).empty();
        fail(child_path(path, name) + " is set twice" + (has_lines_ ? lines : "") +
             (is_section ? "; put all its keys under one '" + name + ":'" : "; keep one"));
      }
      line_of[name] = this_line;
      read_child(path, name, entry.second, name_node);
    }
  }

 private:
  void read_child(const std::string& path, const std::string& name, const YAML::Node& value,
                  const YAML::Node& name_node) {
    const std::string full = child_path(path, name);
    if (const Key* key = key_at(table_, path, name)) return read_key(*key, full, value, name_node);
    if (!children(table_, full).empty()) return read_group(full, value);   // a section, or model.attention(.use)
    if (auto reason = table_.not_keys.find(full); reason != table_.not_keys.end()) {
      fail(full + " is not a config key: " + reason->second + "; remove it" + line(name_node));
    }
    if (auto old = table_.renamed.find(full); old != table_.renamed.end()) {
      return read_renamed(full, old->second, value, name_node);
    }
    fail("unknown key '" + shorten(full) + "'" + suggestion(path, name) +
         (has_lines_ ? " at" + bare_line(name_node) : ""));
  }

  // " (did you mean 'train.max_steps'?)", or the list of valid keys when nothing is close.
  std::string suggestion(const std::string& path, const std::string& name) const {
    std::vector<std::string> elsewhere;               // lr under model: the key exists, in another section
    for (const Section& s : table_.sections) {
      if (s.path != path && key_at(table_, s.path, name)) elsewhere.push_back("'" + s.path + "." + name + "'");
    }
    if (!elsewhere.empty()) return " (did you mean " + join(elsewhere, " or ") + "?)";
    const std::vector<std::string> valid = children(table_, path);
    const std::string closest = closest_match(name, valid);
    if (!closest.empty() && name.size() <= closest_match_most &&
        edit_distance(name, closest) <= std::max<size_t>(2, name.size() / 3)) {
      return " (did you mean '" + child_path(path, closest) + "'?)";
    }
    return " (the keys " + (path.empty() ? std::string("at the top level") : "of " + path) + " are " + join(valid) +
           ")";
  }

  // An old key: its value, mapped, goes to the key that replaced it, and one line says what the new key is.
  void read_renamed(const std::string& full, const Renamed& renamed, const YAML::Node& value,
                    const YAML::Node& name_node) {
    const auto mapped = value.IsScalar() ? renamed.values.find(value.Scalar()) : renamed.values.end();
    if (mapped == renamed.values.end()) {
      std::vector<std::string> old_values;
      for (const auto& [old_value, new_value] : renamed.values) old_values.push_back(old_value);
      fail(full + " (now " + renamed.to + "): expected one of " + join(old_values) + ", got " + shown(value) +
           line(name_node));
    }
    spdlog::warn("{}: {} is now {}: read '{}: {}' as '{}: {}'{}", source_, full, renamed.to, full, value.Scalar(),
                 renamed.to, mapped->second, line(name_node));
    const size_t dot = renamed.to.rfind('.');
    read_key(*key_at(table_, renamed.to.substr(0, dot), renamed.to.substr(dot + 1)), renamed.to,
             YAML::Node(mapped->second), name_node);
  }

  // A value that stands for one or more keys: unless the shorthand refuses it, each of its keys reads it.
  void read_shorthand(const Shorthand& shorthand, const YAML::Node& node) {
    if (auto reason = shorthand.refused.find(node.Scalar()); reason != shorthand.refused.end()) {
      fail(shorthand.path + ": " + reason->second + line(node));
    }
    for (const std::string& full : shorthand.keys) {
      const size_t dot = full.rfind('.');
      read_key(*key_at(table_, full.substr(0, dot), full.substr(dot + 1)), full, node, node);
    }
  }

  // Reads one value into its field. `at` is the node whose line a message gives: the key's own name, because an
  // empty value (`lr:`) has no position of its own.
  void read_key(const Key& key, const std::string& full, const YAML::Node& value, const YAML::Node& at) {
    const Field field = key.field(config_);
    if (!store(value, field, key)) {
      std::string message = full + ": expected " + expectation(field, key) + ", got " + shown(value);
      if (auto choice = std::get_if<Choice>(&field); choice && value.IsScalar()) {
        message += " — did you mean '" + closest_match(value.Scalar(), *choice->names) + "'?";
      }
      fail(message + line(at));
    }
    set_at_[full] = has_lines_ ? "line " + std::to_string(at.Mark().line + 1) : source_;
  }

  std::string bare_line(const YAML::Node& node) const { return " line " + std::to_string(node.Mark().line + 1); }
  std::string line(const YAML::Node& node) const { return has_lines_ ? " (" + bare_line(node).substr(1) + ")" : ""; }

  [[noreturn]] void fail(const std::string& message) const { throw Error(source_ + ": " + message); }

  const Table& table_;
  RunConfig& config_;
  SetAt& set_at_;
  std::string source_;
  bool has_lines_;
};

// ---- Overrides ---------------------------------------------------------------------------------------------

// "model.attention.decoder.window=[2,0]" → the tree {model: {attention: {decoder: {window: [2, 0]}}}}.
YAML::Node override_tree(const std::string& text) {
  const std::string source = "--set " + shorten(text);
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw Error(source + ": expected key=value, e.g. --set train.max_steps=100");
  }
  const std::string path = text.substr(0, equals), value = text.substr(equals + 1);
  YAML::Node tree;
  try {
    tree.reset(YAML::Load(value));
  } catch (const YAML::Exception& e) {
    throw Error(source + ": the value " + quote(value, '\'') + " is not valid YAML: " + e.msg);
  }
  std::vector<std::string> names;
  std::stringstream parts(path);
  for (std::string name; std::getline(parts, name, '.');) names.push_back(name);
  if (path.back() == '.' || std::find(names.begin(), names.end(), "") != names.end()) {
    throw Error(source + ": " + quote(path, '\'') + " is not a key path (names joined by dots, e.g. train.lr)");
  }
  for (auto name = names.rbegin(); name != names.rend(); ++name) {
    YAML::Node parent(YAML::NodeType::Map);
    parent[*name] = tree;
    tree.reset(parent);                             // rebind the handle (operator= would copy into the node)
  }
  return tree;
}

// ---- Writing -----------------------------------------------------------------------------------------------

void emit_group(const Table& table, YAML::Emitter& out, const std::string& path, RunConfig& config) {
  if (const Section* s = section_at(table, path)) {
    for (const Key& key : s->keys) {
      Field field = key.field(config);
      out << YAML::Key << key.name << YAML::Value;
      if (const Window* w = std::get_if<Window>(&field); w && *w->on) {
        out << YAML::Flow << YAML::BeginSeq << *w->left << *w->right << YAML::EndSeq;
      } else if (std::holds_alternative<std::string*>(field)) {
        out << *std::get<std::string*>(field);      // the emitter quotes "" and anything YAML would misread
      } else {
        out << value_text(field);
      }
      out << YAML::Comment(key.doc);
    }
  }
  for (const std::string& name : children(table, path)) {
    const std::string full = child_path(path, name);
    if (key_at(table, path, name)) continue;
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    emit_group(table, out, full, config);
    out << YAML::EndMap;
  }
}

}  // namespace

// ---- The interface -----------------------------------------------------------------------------------------

// A field's value as it is written in a config file (strings unquoted; to_yaml's emitter quotes when needed).
std::string value_text(const Field& field) {
  if (auto p = std::get_if<int64_t*>(&field)) return std::to_string(**p);
  if (auto p = std::get_if<uint64_t*>(&field)) return std::to_string(**p);
  if (auto p = std::get_if<double*>(&field)) return number_text(**p);
  if (auto p = std::get_if<bool*>(&field)) return **p ? "true" : "false";
  if (auto p = std::get_if<std::string*>(&field)) return **p;
  if (auto p = std::get_if<Choice>(&field)) return p->names->at(static_cast<size_t>(p->get()));
  const Window& w = std::get<Window>(field);
  return *w.on ? "[" + std::to_string(*w.left) + ", " + std::to_string(*w.right) + "]" : "none";
}

void read_yaml(const Table& table, const std::string& yaml_text, const std::string& source_name, RunConfig& config,
               SetAt& set_at) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw Error(source_name + ": YAML syntax error at line " + std::to_string(e.mark.line + 1) + ", column " +
                std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  Reader(table, config, set_at, source_name, /*has_lines=*/true).read_group("", root);
}

void read_override(const Table& table, const std::string& text, RunConfig& config, SetAt& set_at) {
  Reader(table, config, set_at, "--set " + shorten(text), /*has_lines=*/false).read_group("", override_tree(text));
}

std::string write_yaml(const Table& table, const RunConfig& config) {
  RunConfig copy = config;                          // the table hands out non-const pointers
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const std::string& section : children(table, "")) {
    out << YAML::Key << section << YAML::Value << YAML::BeginMap;
    emit_group(table, out, section, copy);
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return out.c_str();
}

}  // namespace config_table
}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
