// config_io.cpp — YAML config files in, checked RunConfig out; and the effective config back out as YAML.
//
// The whole file format is one table: for every section ("train", "model.attention.decoder", …) a list of keys,
// each with the field it fills, the range its value must be in, the values it may take, and one line of
// documentation. Reading, writing (to_yaml) and the documentation test all walk that table, so a key is added in
// one place. Reading goes in three steps:
//   1. yaml-cpp parses the text into a tree of nodes (a syntax error stops here, with line and column);
//   2. Reader::read_group() walks the tree against the table: an unknown key, a wrong type or an out-of-range value
//      stops with the key's full path and the line. Each `--set a.b.c=v` override becomes the tree {a: {b: {c: v}}}
//      and goes through the same walk, so overrides get exactly the same checks;
//   3. check_consistency() looks at keys that depend on each other (data.train_src needs data.train_tgt, …).
#include "train/config_io.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <variant>

#include "tensor/error.h"
#include "util/suggest.h"

namespace attnlab::inline ATTNLAB_PRECISION {
namespace {

// ---- The table ---------------------------------------------------------------------------------------------

// model.attention.<use>.window: `none`, or [left, right] — three fields of AttentionConfig written as one key.
struct Window {
  bool* on;
  int64_t* left;
  int64_t* right;
};

// Where a key's value lives in a RunConfig; the pointer's type says how the YAML value is read.
using Field = std::variant<int64_t*, uint64_t*, double*, bool*, std::string*, Window>;

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
  std::vector<std::string> choices;         // when not empty, a string key must be one of these
  std::string doc;                          // one line, for configs/README.md and the comments of to_yaml()
};

struct Section {
  std::string path;       // "train", "model.attention.decoder"
  std::vector<Key> keys;
};

const std::vector<std::string> attention_uses{"encoder", "decoder", "cross"};

AttentionConfig& attention_of(RunConfig& c, const std::string& use) {
  if (use == "encoder") return c.model.encoder_attention;
  if (use == "decoder") return c.model.decoder_attention;
  return c.model.cross_attention;
}
const AttentionConfig& attention_of(const RunConfig& c, const std::string& use) {
  if (use == "encoder") return c.model.encoder_attention;
  if (use == "decoder") return c.model.decoder_attention;
  return c.model.cross_attention;
}

// The keys of model.attention.<use>; the same four for each use.
Section attention_section(const std::string& use) {
  auto at = [use](RunConfig& c) -> AttentionConfig& { return attention_of(c, use); };
  return {"model.attention." + use,
          {{"kind", [at](RunConfig& c) { return &at(c).kind; }, Range::any, attention_kinds(),
            "the attention mechanism (the table below)"},
           {"scale", [at](RunConfig& c) { return &at(c).scale; }, Range::any, {},
            "divide scores by √d_k (softmax kinds); false shows what the √d_k is for"},
           {"window", [at](RunConfig& c) { return Window{&at(c).has_window, &at(c).window_left, &at(c).window_right}; },
            Range::any, {}, "none, or [left, right]: query i sees only keys i − left … i + right (softmax kinds)"},
           {"memory_slots", [at](RunConfig& c) { return &at(c).memory_slots; }, Range::positive, {},
            "S, the number of learned memory rows of external attention"}}};
}

const std::vector<Section>& sections() {
  static const std::vector<Section> table{
      {"data",
       {{"train_src", [](RunConfig& c) { return &c.data.train_src; }, Range::any, {},
         "training source text, one sentence a line (needs train_tgt)"},
        {"train_tgt", [](RunConfig& c) { return &c.data.train_tgt; }, Range::any, {},
         "training target text: line i translates line i of train_src"},
        {"train_tsv", [](RunConfig& c) { return &c.data.train_tsv; }, Range::any, {},
         "instead of train_src/train_tgt: one file of `source<TAB>target` lines"},
        {"valid_src", [](RunConfig& c) { return &c.data.valid_src; }, Range::any, {},
         "validation source text (optional; needs valid_tgt)"},
        {"valid_tgt", [](RunConfig& c) { return &c.data.valid_tgt; }, Range::any, {}, "validation target text"},
        {"valid_tsv", [](RunConfig& c) { return &c.data.valid_tsv; }, Range::any, {},
         "instead of valid_src/valid_tgt: one TSV file"},
        {"test_src", [](RunConfig& c) { return &c.data.test_src; }, Range::any, {},
         "test source text (optional; needs test_tgt)"},
        {"test_tgt", [](RunConfig& c) { return &c.data.test_tgt; }, Range::any, {}, "test target text"},
        {"test_tsv", [](RunConfig& c) { return &c.data.test_tsv; }, Range::any, {},
         "instead of test_src/test_tgt: one TSV file"},
        {"max_len", [](RunConfig& c) { return &c.data.max_len; }, Range::positive, {},
         "pairs with more tokens than this on either side are skipped (and counted)"},
        {"lowercase", [](RunConfig& c) { return &c.data.lowercase; }, Range::any, {},
         "lower-case all text before tokenizing"}}},
      {"tokenizer",
       {{"kind", [](RunConfig& c) { return &c.tokenizer.kind; }, Range::any, {"word", "char", "bpe", "unigram"},
         "word | char | bpe | unigram (bpe and unigram are sentencepiece subwords)"},
        {"vocab_size", [](RunConfig& c) { return &c.tokenizer.vocab_size; }, Range::non_negative, {},
         "bpe / unigram: the vocabulary size; word / char: a cap on it (0 = keep all)"},
        {"shared", [](RunConfig& c) { return &c.tokenizer.shared; }, Range::any, {},
         "one vocabulary for source and target"},
        {"min_count", [](RunConfig& c) { return &c.tokenizer.min_count; }, Range::positive, {},
         "word / char: tokens seen fewer times become unk"}}},
      {"model",
       {{"share_embeddings", [](RunConfig& c) { return &c.model.share_embeddings; }, Range::any, {},
         "one embedding table for source and target (needs tokenizer.shared: true)"},
        {"tie_output", [](RunConfig& c) { return &c.model.tie_output; }, Range::any, {},
         "the output projection reuses the target embedding table"},
        {"d_model", [](RunConfig& c) { return &c.model.d_model; }, Range::positive, {},
         "width of every token vector (a multiple of heads)"},
        {"heads", [](RunConfig& c) { return &c.model.heads; }, Range::positive, {},
         "attention heads; each has d_k = d_model / heads"},
        {"d_ff", [](RunConfig& c) { return &c.model.d_ff; }, Range::positive, {},
         "hidden width of the position-wise feed-forward network"},
        {"encoder_layers", [](RunConfig& c) { return &c.model.encoder_layers; }, Range::positive, {},
         "N, encoder layers"},
        {"decoder_layers", [](RunConfig& c) { return &c.model.decoder_layers; }, Range::positive, {},
         "N, decoder layers"},
        {"dropout", [](RunConfig& c) { return &c.model.dropout; }, Range::below_one, {},
         "on embeddings, attention weights, FFN hidden units and sublayer outputs"},
        {"activation", [](RunConfig& c) { return &c.model.activation; }, Range::any, {"relu", "gelu"},
         "relu | gelu, inside the feed-forward network"},
        {"norm", [](RunConfig& c) { return &c.model.norm; }, Range::any, {"post", "pre"},
         "post (LayerNorm after the residual, as in the paper) | pre (before the sublayer)"},
        {"residual", [](RunConfig& c) { return &c.model.residual; }, Range::any, {},
         "x + Sublayer(x) in every layer; false drops the x + (an ablation)"},
        {"positional", [](RunConfig& c) { return &c.model.positional; }, Range::any,
         {"sinusoidal", "learned", "none"}, "sinusoidal | learned | none"},
        {"max_len", [](RunConfig& c) { return &c.model.max_len; }, Range::positive, {},
         "positions in the learned table (learned positions only)"}}},
      attention_section("encoder"),
      attention_section("decoder"),
      attention_section("cross"),
      {"train",
       {{"seed", [](RunConfig& c) { return &c.train.seed; }, Range::any, {},
         "seeds initialisation, dropout and batch order: the same seed gives the same run"},
        {"threads", [](RunConfig& c) { return &c.train.threads; }, Range::non_negative, {},
         "CPU threads (0 = all cores)"},
        {"batch_tokens", [](RunConfig& c) { return &c.train.batch_tokens; }, Range::positive, {},
         "source + target tokens per batch, padding included (approximately)"},
        {"max_steps", [](RunConfig& c) { return &c.train.max_steps; }, Range::positive, {}, "optimizer steps"},
        {"max_minutes", [](RunConfig& c) { return &c.train.max_minutes; }, Range::non_negative, {},
         "stop after this much wall time (0 = no limit)"},
        {"optimizer", [](RunConfig& c) { return &c.train.optimizer; }, Range::any, {"adam", "adamw"},
         "adam | adamw (decoupled weight decay)"},
        {"lr", [](RunConfig& c) { return &c.train.lr; }, Range::positive, {},
         "peak learning rate; for noam, the multiplier of d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)"},
        {"beta1", [](RunConfig& c) { return &c.train.beta1; }, Range::below_one, {}, "Adam's β₁"},
        {"beta2", [](RunConfig& c) { return &c.train.beta2; }, Range::below_one, {}, "Adam's β₂"},
        {"eps", [](RunConfig& c) { return &c.train.eps; }, Range::positive, {}, "Adam's ε"},
        {"weight_decay", [](RunConfig& c) { return &c.train.weight_decay; }, Range::non_negative, {},
         "adamw only"},
        {"schedule", [](RunConfig& c) { return &c.train.schedule; }, Range::any,
         {"noam", "inverse_sqrt", "constant", "cosine"}, "noam | inverse_sqrt | constant | cosine"},
        {"warmup_steps", [](RunConfig& c) { return &c.train.warmup_steps; }, Range::non_negative, {},
         "steps of linear warm-up (noam and inverse_sqrt need at least 1)"},
        {"label_smoothing", [](RunConfig& c) { return &c.train.label_smoothing; }, Range::below_one, {},
         "ε_ls: the target distribution puts 1 − ε_ls on the right token"},
        {"clip_norm", [](RunConfig& c) { return &c.train.clip_norm; }, Range::non_negative, {},
         "clip the global gradient norm to this (0 = off)"},
        {"accumulate", [](RunConfig& c) { return &c.train.accumulate; }, Range::positive, {},
         "batches per optimizer step"},
        {"valid_every", [](RunConfig& c) { return &c.train.valid_every; }, Range::positive, {},
         "steps between validations"},
        {"valid_samples", [](RunConfig& c) { return &c.train.valid_samples; }, Range::non_negative, {},
         "validation sentences translated greedily for exact match and BLEU"},
        {"checkpoint_every", [](RunConfig& c) { return &c.train.checkpoint_every; }, Range::positive, {},
         "steps between checkpoints"},
        {"keep_last", [](RunConfig& c) { return &c.train.keep_last; }, Range::non_negative, {},
         "checkpoints kept besides the best"},
        {"log_every", [](RunConfig& c) { return &c.train.log_every; }, Range::positive, {},
         "steps between log lines when not on a terminal"}}},
      {"decode",
       {{"beam", [](RunConfig& c) { return &c.decode.beam; }, Range::positive, {}, "beam size (1 = greedy)"},
        {"length_penalty", [](RunConfig& c) { return &c.decode.length_penalty; }, Range::non_negative, {},
         "GNMT's α: scores are divided by ((5 + length) / 6)^α"},
        {"max_len_ratio", [](RunConfig& c) { return &c.decode.max_len_ratio; }, Range::positive, {},
         "longest output = max_len_ratio · source length + max_len_extra"},
        {"max_len_extra", [](RunConfig& c) { return &c.decode.max_len_extra; }, Range::non_negative, {},
         "see max_len_ratio"}}},
  };
  return table;
}

// Keys that look like config keys but are not, with the reason.
const std::map<std::string, std::string> not_keys{
    {"model.src_vocab", "the vocabulary sizes come from the tokenizer (set tokenizer.vocab_size instead)"},
    {"model.tgt_vocab", "the vocabulary sizes come from the tokenizer (set tokenizer.vocab_size instead)"},
};

std::string child_path(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

const Section* section_at(const std::string& path) {
  for (const Section& s : sections()) {
    if (s.path == path) return &s;
  }
  return nullptr;
}

const Key* key_at(const std::string& section_path, const std::string& name) {
  if (const Section* s = section_at(section_path)) {
    for (const Key& k : s->keys) {
      if (k.name == name) return &k;
    }
  }
  return nullptr;
}

// What may appear inside `path` ("" is the file's top level): the section's own keys, then the next component
// of every deeper section ("model" → …, "attention"; "model.attention" → "encoder", "decoder", "cross").
std::vector<std::string> children(const std::string& path) {
  std::vector<std::string> names;
  auto add = [&names](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  if (const Section* s = section_at(path)) {
    for (const Key& k : s->keys) add(k.name);
  }
  const std::string prefix = path.empty() ? "" : path + ".";
  for (const Section& s : sections()) {
    if (s.path.size() > prefix.size() && s.path.compare(0, prefix.size(), prefix) == 0) {
      std::string rest = s.path.substr(prefix.size());
      add(rest.substr(0, rest.find('.')));
    }
  }
  return names;
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

// A field's value as it is written in a config file (strings unquoted; to_yaml's emitter quotes when needed).
std::string value_text(const Field& field) {
  if (auto p = std::get_if<int64_t*>(&field)) return std::to_string(**p);
  if (auto p = std::get_if<uint64_t*>(&field)) return std::to_string(**p);
  if (auto p = std::get_if<double*>(&field)) return number_text(**p);
  if (auto p = std::get_if<bool*>(&field)) return **p ? "true" : "false";
  if (auto p = std::get_if<std::string*>(&field)) return **p;
  const Window& w = std::get<Window>(field);
  return *w.on ? "[" + std::to_string(*w.left) + ", " + std::to_string(*w.right) + "]" : "none";
}

// How a value is shown in a message: as it was written ('fast', '[2]', '{a: 1}'), or "nothing" when empty.
std::string shown(const YAML::Node& node) {
  if (node.IsNull()) return "nothing";
  if (node.IsScalar()) return "'" + node.Scalar() + "'";
  YAML::Emitter flow;
  flow << YAML::Flow << node;
  std::string text = flow.c_str();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return "'" + text + "'";
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

// What a key's value must be, for messages: "a whole number > 0", "one of adam, adamw".
std::string expectation(const Field& field, const Key& key) {
  const bool whole = std::holds_alternative<int64_t*>(field);
  if (whole || std::holds_alternative<double*>(field)) {
    const std::string kind = whole ? "a whole number" : "a number";
    switch (key.range) {
      case Range::any: return kind;
      case Range::positive: return kind + " > 0";
      case Range::non_negative: return kind + " ≥ 0";
      case Range::below_one: return kind + " in [0, 1)";
    }
  }
  if (std::holds_alternative<uint64_t*>(field)) return "a whole number ≥ 0";
  if (std::holds_alternative<bool*>(field)) return "true or false";
  if (std::holds_alternative<Window>(field)) {
    return "none or [left, right] with two whole numbers ≥ 0 (e.g. [2, 0]: two keys back, none ahead)";
  }
  return key.choices.empty() ? "a file path" : "one of " + join(key.choices);
}

bool in_range(double value, Range range) {
  switch (range) {
    case Range::any: return true;
    case Range::positive: return value > 0;
    case Range::non_negative: return value >= 0;
    case Range::below_one: return value >= 0 && value < 1;
  }
  return false;
}

// Parses `node` as the field's type, checks the key's range or choices, and stores it. False when it does not fit.
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
  if (auto text = std::get_if<std::string*>(&field); text && key.choices.empty()) {   // a path: empty = not given
    if (node.IsNull()) **text = "";
    if (node.IsScalar()) **text = node.Scalar();
    return node.IsNull() || node.IsScalar();
  }
  if (!node.IsScalar()) return false;
  const std::string& scalar = node.Scalar();
  if (auto p = std::get_if<int64_t*>(&field)) {
    std::optional<int64_t> value = whole_number<int64_t>(scalar);
    if (!value || !in_range(static_cast<double>(*value), key.range)) return false;
    **p = *value;
  } else if (auto p = std::get_if<uint64_t*>(&field)) {        // train.seed: any 64-bit number ≥ 0
    std::optional<uint64_t> value = whole_number<uint64_t>(scalar);
    if (!value) return false;
    **p = *value;
  } else if (auto p = std::get_if<double*>(&field)) {
    std::optional<double> value = finite_number(scalar);
    if (!value || !in_range(*value, key.range)) return false;
    **p = *value;
  } else if (auto p = std::get_if<bool*>(&field)) {
    if (scalar == "true" || scalar == "True" || scalar == "yes" || scalar == "on") {
      **p = true;
    } else if (scalar == "false" || scalar == "False" || scalar == "no" || scalar == "off") {
      **p = false;
    } else {
      return false;
    }
  } else {                                                       // a string with a fixed set of values
    if (std::find(key.choices.begin(), key.choices.end(), scalar) == key.choices.end()) return false;
    *std::get<std::string*>(field) = scalar;
  }
  return true;
}

// ---- Reading -----------------------------------------------------------------------------------------------

// Walks a tree of YAML nodes against the table, filling a RunConfig. One Reader per source: the file, or one
// --set override. It remembers where each key was set, for the messages of check_consistency().
class Reader {
 public:
  Reader(RunConfig& config, std::map<std::string, std::string>& set_at, std::string source, bool has_lines)
      : config_(config), set_at_(set_at), source_(std::move(source)), has_lines_(has_lines) {}

  // `node` holds the contents of `path` ("" = the whole file, "train", "model.attention", …).
  void read_group(const std::string& path, const YAML::Node& node) {
    if (node.IsNull()) return;                        // "decode:" with everything under it commented out
    if (node.IsScalar() && path == "model.attention") return read_attention_shorthand(node);
    if (node.IsScalar() && path.starts_with("model.attention.")) {  // model.attention.decoder: linear
      return read_key(*key_at(path, "kind"), child_path(path, "kind"), node, node);
    }
    if (!node.IsMap()) {
      const std::string kind_or = path.starts_with("model.attention") ? "an attention kind or " : "";
      fail((path.empty() ? std::string("the file") : path) + ": expected " + kind_or + "a mapping of keys (" +
           join(children(path)) + "), got " + shown(node) + line(node));
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
        const bool is_section = !children(child_path(path, name)).empty();
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
    if (const Key* key = key_at(path, name)) return read_key(*key, full, value, name_node);
    if (!children(full).empty()) return read_group(full, value);   // a section, or model.attention(.use)
    if (auto reason = not_keys.find(full); reason != not_keys.end()) {
      fail(full + " is not a config key: " + reason->second + "; remove it" + line(name_node));
    }
    fail("unknown key '" + full + "'" + suggestion(path, name) + (has_lines_ ? " at" + bare_line(name_node) : ""));
  }

  // " (did you mean 'train.max_steps'?)", or the list of valid keys when nothing is close.
  std::string suggestion(const std::string& path, const std::string& name) const {
    std::vector<std::string> elsewhere;               // lr under model: the key exists, in another section
    for (const Section& s : sections()) {
      if (s.path != path && key_at(s.path, name)) elsewhere.push_back("'" + s.path + "." + name + "'");
    }
    if (!elsewhere.empty()) return " (did you mean " + join(elsewhere, " or ") + "?)";
    const std::vector<std::string> valid = children(path);
    const std::string closest = closest_match(name, valid);
    if (!closest.empty() && edit_distance(name, closest) <= std::max<size_t>(2, name.size() / 3)) {
      return " (did you mean '" + child_path(path, closest) + "'?)";
    }
    return " (the keys " + (path.empty() ? std::string("at the top level") : "of " + path) + " are " + join(valid) +
           ")";
  }

  void read_attention_shorthand(const YAML::Node& node) {
    if (node.Scalar() == "external") {
      fail("model.attention: 'external' would set all three uses, but external attention cannot be "
           "cross-attention — its keys and values are learned memories, not the encoder's output, so the decoder "
           "would never see the source sentence. Write `attention: {encoder: external, decoder: external}` "
           "instead" + line(node));
    }
    for (const std::string& use : attention_uses) {
      const std::string use_path = "model.attention." + use;
      read_key(*key_at(use_path, "kind"), use_path + ".kind", node, node);
    }
  }

  // Reads one value into its field. `at` is the node whose line a message gives: the key's own name, because an
  // empty value (`lr:`) has no position of its own.
  void read_key(const Key& key, const std::string& full, const YAML::Node& value, const YAML::Node& at) {
    const Field field = key.field(config_);
    if (!store(value, field, key)) {
      std::string message = full + ": expected " + expectation(field, key) + ", got " + shown(value);
      if (!key.choices.empty() && value.IsScalar()) {
        message += " — did you mean '" + closest_match(value.Scalar(), key.choices) + "'?";
      }
      fail(message + line(at));
    }
    set_at_[full] = has_lines_ ? "line " + std::to_string(at.Mark().line + 1) : source_;
  }

  std::string bare_line(const YAML::Node& node) const { return " line " + std::to_string(node.Mark().line + 1); }
  std::string line(const YAML::Node& node) const { return has_lines_ ? " (" + bare_line(node).substr(1) + ")" : ""; }

  [[noreturn]] void fail(const std::string& message) const { throw Error(source_ + ": " + message); }

  RunConfig& config_;
  std::map<std::string, std::string>& set_at_;
  std::string source_;
  bool has_lines_;
};

// ---- Keys that depend on each other ------------------------------------------------------------------------

void check_consistency(const RunConfig& c, const std::map<std::string, std::string>& set_at,
                       const std::string& source) {
  // " (line 12)" or " (--set model.heads=3)" for keys the user set; nothing for defaults.
  auto where = [&set_at](const std::string& path) {
    auto found = set_at.find(path);
    return found == set_at.end() ? std::string() : " (" + found->second + ")";
  };
  auto fail = [&source](const std::string& message) { throw Error(source + ": " + message); };

  struct Split {
    std::string name;
    const std::string &src, &tgt, &tsv;
  };
  for (const Split& split : {Split{"train", c.data.train_src, c.data.train_tgt, c.data.train_tsv},
                             Split{"valid", c.data.valid_src, c.data.valid_tgt, c.data.valid_tsv},
                             Split{"test", c.data.test_src, c.data.test_tgt, c.data.test_tsv}}) {
    const std::string src = "data." + split.name + "_src", tgt = "data." + split.name + "_tgt",
                      tsv = "data." + split.name + "_tsv";
    if (!split.tsv.empty() && (!split.src.empty() || !split.tgt.empty())) {
      fail(tsv + where(tsv) + " and " + (split.src.empty() ? tgt + where(tgt) : src + where(src)) +
           " are both set; give the " + split.name + " split either as " + split.name + "_src and " + split.name +
           "_tgt (two line-aligned files) or as " + split.name + "_tsv (one file), not both");
    }
    if (split.src.empty() != split.tgt.empty()) {
      const std::string& given = split.src.empty() ? tgt : src;
      const std::string& missing = split.src.empty() ? src : tgt;
      fail(given + where(given) + " is set but " + missing + " is not; the " + split.name +
           " split needs both sides (or one " + tsv + " file instead)");
    }
  }
  if (c.data.train_src.empty() && c.data.train_tsv.empty()) {
    fail("no training data: set data.train_src and data.train_tgt (two line-aligned files), or data.train_tsv "
         "(one file of source<TAB>target lines)");
  }

  if (c.tokenizer.kind != "word" && c.tokenizer.kind != "char" && c.tokenizer.vocab_size <= 4) {
    fail("tokenizer.vocab_size" + where("tokenizer.vocab_size") + " must be more than 4 (the special ids pad, bos, "
         "eos, unk) for a " + c.tokenizer.kind + " tokenizer, got " + std::to_string(c.tokenizer.vocab_size));
  }
  if (c.model.d_model % c.model.heads != 0) {
    fail("model.d_model = " + std::to_string(c.model.d_model) + where("model.d_model") +
         " must be divisible by model.heads = " + std::to_string(c.model.heads) + where("model.heads") +
         ": each head gets d_model / heads dimensions");
  }
  if (c.model.share_embeddings && !c.tokenizer.shared) {
    fail("model.share_embeddings" + where("model.share_embeddings") + " needs one vocabulary for both sides; set "
         "tokenizer.shared: true" + where("tokenizer.shared") + " or model.share_embeddings: false");
  }
  if (c.model.positional == "learned" && c.data.max_len + 1 > c.model.max_len) {
    fail("model.max_len = " + std::to_string(c.model.max_len) + where("model.max_len") +
         " is too small for learned positions: sentences of data.max_len = " + std::to_string(c.data.max_len) +
         where("data.max_len") + " tokens plus bos or eos need " + std::to_string(c.data.max_len + 1) +
         " positions; raise model.max_len or use positional: sinusoidal");
  }
  for (const std::string& use : attention_uses) {
    const AttentionConfig& a = attention_of(c, use);
    const std::string path = "model.attention." + use;
    if (use == "cross" && a.kind == "external") {
      fail(path + ".kind" + where(path + ".kind") + ": external attention cannot be cross-attention — its keys and "
           "values are learned memories, not the encoder's output, so the decoder would never see the source "
           "sentence. Use it for encoder or decoder self-attention");
    }
    if (a.has_window && (a.kind == "external" || a.kind == "linear")) {
      fail(path + ".window" + where(path + ".window") + ": a window restricts a softmax over keys, and '" + a.kind +
           "' attention has none; use it with scaled_dot, additive, simplified or sagan");
    }
  }
  if ((c.train.schedule == "noam" || c.train.schedule == "inverse_sqrt") && c.train.warmup_steps < 1) {
    fail("train.warmup_steps" + where("train.warmup_steps") + " must be at least 1 for the " + c.train.schedule +
         " schedule" + where("train.schedule") + ", which divides by it");
  }
  if (c.train.optimizer == "adam" && c.train.weight_decay != 0) {
    fail("train.weight_decay" + where("train.weight_decay") + " is used by adamw only, but train.optimizer is "
         "adam" + where("train.optimizer") + "; set train.optimizer: adamw or remove weight_decay");
  }
}

// ---- Overrides ---------------------------------------------------------------------------------------------

// "model.attention.decoder.window=[2,0]" → the tree {model: {attention: {decoder: {window: [2, 0]}}}}.
YAML::Node override_tree(const std::string& text) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw Error("--set " + text + ": expected key=value, e.g. --set train.max_steps=100");
  }
  const std::string path = text.substr(0, equals), value = text.substr(equals + 1);
  YAML::Node tree;
  try {
    tree.reset(YAML::Load(value));
  } catch (const YAML::Exception& e) {
    throw Error("--set " + text + ": the value '" + value + "' is not valid YAML: " + e.msg);
  }
  std::vector<std::string> names;
  std::stringstream parts(path);
  for (std::string name; std::getline(parts, name, '.');) names.push_back(name);
  if (path.back() == '.' || std::find(names.begin(), names.end(), "") != names.end()) {
    throw Error("--set " + text + ": '" + path + "' is not a key path (names joined by dots, e.g. train.lr)");
  }
  for (auto name = names.rbegin(); name != names.rend(); ++name) {
    YAML::Node parent(YAML::NodeType::Map);
    parent[*name] = tree;
    tree.reset(parent);                             // rebind the handle (operator= would copy into the node)
  }
  return tree;
}

// ---- Writing -----------------------------------------------------------------------------------------------

void emit_group(YAML::Emitter& out, const std::string& path, RunConfig& config) {
  if (const Section* s = section_at(path)) {
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
  for (const std::string& name : children(path)) {
    const std::string full = child_path(path, name);
    if (key_at(path, name)) continue;
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    emit_group(out, full, config);
    out << YAML::EndMap;
  }
}

}  // namespace

// ---- The interface -----------------------------------------------------------------------------------------

RunConfig parse_config(const std::string& yaml_text, const std::string& source_name,
                       const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw Error(source_name + ": YAML syntax error at line " + std::to_string(e.mark.line + 1) + ", column " +
                std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  RunConfig config;
  std::map<std::string, std::string> set_at;
  Reader(config, set_at, source_name, /*has_lines=*/true).read_group("", root);
  for (const std::string& text : overrides) {
    Reader(config, set_at, "--set " + text, /*has_lines=*/false).read_group("", override_tree(text));
  }
  check_consistency(config, set_at, source_name);
  return config;
}

RunConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw Error("config file '" + path + "' not found");
  if (std::filesystem::is_directory(path, error)) {
    throw Error("config file '" + path + "' is a folder; give the path of a .yaml file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("config file '" + path + "' cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path, overrides);
}

std::string to_yaml(const RunConfig& config) {
  RunConfig copy = config;                          // the table hands out non-const pointers
  YAML::Emitter out;
  out << YAML::BeginMap;
  for (const std::string& section : children("")) {
    out << YAML::Key << section << YAML::Value << YAML::BeginMap;
    emit_group(out, section, copy);
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return "# The effective config of this run: every key, defaults included (configs/README.md explains them).\n" +
         std::string(out.c_str()) + "\n";
}

std::vector<ConfigKeyDoc> config_key_docs() {
  RunConfig defaults;
  std::vector<ConfigKeyDoc> docs;
  for (const Section& s : sections()) {
    std::string path = s.path;
    if (path.starts_with("model.attention.")) {
      if (path != "model.attention.encoder") continue;     // the three uses share their keys and defaults
      path = "model.attention.<use>";
    }
    for (const Key& key : s.keys) {
      std::string value = value_text(key.field(defaults));
      docs.push_back({path + "." + key.name, value.empty() ? "\"\"" : value, key.doc});
    }
  }
  return docs;
}

}  // namespace attnlab::inline ATTNLAB_PRECISION
