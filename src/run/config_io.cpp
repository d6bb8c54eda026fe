// config_io.cpp — YAML config files in, checked RunConfig out; and the effective config back out as YAML.
//
// The whole file format is one table (config_table.h): for every section ("train", "model.attention.decoder", …)
// a list of keys, each with the field it fills, the range its value must be in, the values it may take, and one
// line of documentation. config_keys.cpp holds attnlab's table; reading, writing (to_yaml) and the documentation
// test all walk it, so a key is added in one place. Reading goes in three steps:
//   1. yaml-cpp parses the text into a tree of nodes (a syntax error stops here, with line and column);
//   2. read_yaml() walks the tree against the table: an unknown key, a wrong type or an out-of-range value stops
//      with the key's full path and the line. Each `--set a.b.c=v` override becomes the tree {a: {b: {c: v}}}
//      and goes through the same walk (read_override()), so overrides get exactly the same checks;
//   3. check_consistency() looks at keys that depend on each other (data.train_src needs data.train_tgt, …).
#include "run/config_io.h"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "run/config_keys.h"
#include "run/config_table.h"
#include "util/error.h"
#include "util/files.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

using namespace config_table;   // Table, Section, Key, Range, Window, Shorthand, SetAt; read_yaml, write_yaml, …

namespace {

// ---- Keys that depend on each other ------------------------------------------------------------------------

// The train: keys that depend on each other; `where` names where a key was set, `fail` throws.
void check_train_keys(const TrainConfig& t, const std::function<std::string(const std::string&)>& where,
                      const std::function<void(const std::string&)>& fail) {
  const ScheduleKind schedule = t.schedule;
  if ((schedule == ScheduleKind::noam || schedule == ScheduleKind::inverse_sqrt) && t.warmup_steps < 1) {
    fail("train.warmup_steps" + where("train.warmup_steps") + " must be at least 1 for the " + name_of(schedule) +
         " schedule" + where("train.schedule") + ", which divides by it");
  }
  if (t.schedule_by == ScheduleClock::time && t.max_minutes <= 0) {
    fail("train.schedule_by: time" + where("train.schedule_by") + " places the schedule in train.max_minutes, but "
         "no time limit is set; set train.max_minutes (or schedule_by: steps)");
  }
  if (t.average_last > t.keep_last) {
    fail("train.average_last = " + std::to_string(t.average_last) + where("train.average_last") +
         " is more than the train.keep_last = " + std::to_string(t.keep_last) + where("train.keep_last") +
         " step checkpoints a run keeps; raise keep_last to at least average_last");
  }
  if (t.optimizer == OptimizerKind::adam && t.weight_decay != 0) {
    fail("train.weight_decay" + where("train.weight_decay") + " is used by adamw only, but train.optimizer is "
         "adam" + where("train.optimizer") + "; set train.optimizer: adamw or remove weight_decay");
  }
}

// model.task: language_model reads one text per split (data.*_text), the other tasks sentence pairs; a key of
// the other kind is refused rather than ignored.
void check_text_keys(const RunConfig& c, const std::function<std::string(const std::string&)>& where,
                     const std::function<void(const std::string&)>& fail) {
  const bool language_model = c.model.task == Task::language_model;
  for (const std::string split : {"train", "valid", "test"}) {
    const std::string text = "data." + split + "_text";
    const std::string& text_path = split == "train" ? c.data.train_text
                                   : split == "valid" ? c.data.valid_text : c.data.test_text;
    const std::string& pair_path = split == "train" ? c.data.train_src + c.data.train_tsv
                                   : split == "valid" ? c.data.valid_src + c.data.valid_tsv
                                                      : c.data.test_src + c.data.test_tsv;
    if (!language_model && !text_path.empty()) {
      fail(text + where(text) + " is read by model.task: language_model only, but model.task is " +
           name_of(c.model.task) + where("model.task") + "; give this task's " + split + " split as data." + split +
           "_src and data." + split + "_tgt (or data." + split + "_tsv), or set model.task: language_model");
    }
    if (language_model && !pair_path.empty()) {
      fail("model.task: language_model" + where("model.task") + " learns one text, not sentence pairs: give the " +
           split + " split as " + text + " (one file, a document a line) instead of data." + split + "_src / _tgt / _tsv");
    }
  }
  if (language_model && c.data.train_text.empty()) {
    fail("no training text: model.task: language_model" + where("model.task") + " needs data.train_text (one file, "
         "a document a line)");
  }
  if (language_model && !c.tokenizer.shared) {
    fail("model.task: language_model" + where("model.task") + " has one vocabulary: set tokenizer.shared: true" +
         where("tokenizer.shared"));
  }
}

void check_consistency(const RunConfig& c, const SetAt& set_at, const std::string& source) {
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
  check_text_keys(c, where, fail);
  if (c.model.task != Task::language_model && c.data.train_src.empty() && c.data.train_tsv.empty()) {
    fail("no training data: set data.train_src and data.train_tgt (two line-aligned files), or data.train_tsv "
         "(one file of source<TAB>target lines)");
  }

  const bool subwords = c.tokenizer.kind == TokenizerKind::bpe || c.tokenizer.kind == TokenizerKind::unigram;
  if (subwords && c.tokenizer.vocab_size <= 4) {
    fail("tokenizer.vocab_size" + where("tokenizer.vocab_size") + " must be more than 4 (the special ids pad, bos, "
         "eos, unk) for a " + name_of(c.tokenizer.kind) + " tokenizer, got " + std::to_string(c.tokenizer.vocab_size));
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
  // Learned positions need data.max_len + 1 of them.
  if (c.model.positional == PositionalKind::learned && c.data.max_len >= c.model.max_len) {
    fail("model.max_len = " + std::to_string(c.model.max_len) + where("model.max_len") +
         " is too small for learned positions: sentences of data.max_len = " + std::to_string(c.data.max_len) +
         where("data.max_len") + " tokens plus bos or eos need " + std::to_string(c.data.max_len + 1) +
         " positions; raise model.max_len or use positional: sinusoidal");
  }
  for (const std::string& use : attention_uses) {
    const AttentionConfig& a = attention_of(c, use);
    const std::string path = "model.attention." + use;
    if (use == "cross" && a.kind == AttentionKind::external) {
      fail(path + ".kind" + where(path + ".kind") + ": external attention cannot be cross-attention — its keys and "
           "values are learned memories, not the encoder's output, so the decoder would never see the source "
           "sentence. Use it for encoder or decoder self-attention");
    }
    if (a.has_window && (a.kind == AttentionKind::external || a.kind == AttentionKind::linear)) {
      fail(path + ".window" + where(path + ".window") + ": a window restricts a softmax over keys, and '" +
           name_of(a.kind) + "' attention has none; use it with scaled_dot, additive, simplified, sagan or hard");
    }
    if (a.has_window && (a.kind == AttentionKind::local_m || a.kind == AttentionKind::local_p)) {
      fail(path + ".window" + where(path + ".window") + ": " + name_of(a.kind) +
           " has its own window [p_i − D, p_i + D] around its centre p_i; set D with " + path + ".local_width instead");
    }
  }
  if (c.model.task == Task::cloze && (c.tokenizer.kind != TokenizerKind::word || !c.tokenizer.shared)) {
    fail("model.task: cloze" + where("model.task") + " needs tokenizer.kind: word and tokenizer.shared: true" +
         where("tokenizer.kind") + ": the answer must be one word of the document's vocabulary");
  }
  check_train_keys(c.train, where, fail);
}

// ---- Nesting: a config nests four levels (model.attention.encoder.kind); the parser recurses once a level ----

constexpr int max_nesting = 32;
constexpr size_t max_config_bytes = size_t{1} << 20;   // 1 MiB: the longest shipped config is a few KiB

[[noreturn]] void refuse_nesting(const std::string& source_name, int64_t line) {
  throw Error(source_name + ": the YAML nests deeper than " + std::to_string(max_nesting) + " levels at line " +
              std::to_string(line) + "; an attnlab config nests at most four (configs/README.md)");
}

// Refuses a text whose nesting is deeper than max_nesting before yaml-cpp, which recurses once a level, sees it:
// block nesting is counted by indentation (a stack of the columns open) and the "- " items that open a line;
// flow nesting by the [ and { open outside quotes and comments.
void refuse_deep_nesting(const std::string& text, const std::string& source_name) {
  std::vector<size_t> columns;   // the indentation of each open block level
  int flow = 0;
  int64_t line = 1;
  for (size_t at = 0; at < text.size(); ++line) {
    const size_t end = std::min(text.find('\n', at), text.size());
    size_t column = text.find_first_not_of(' ', at) - at;
    if (flow == 0 && at + column < end && text[at + column] != '#') {
      while (!columns.empty() && columns.back() >= column) columns.pop_back();
      columns.push_back(column);
      for (size_t i = at + column; i + 1 < end && text[i] == '-' && text[i + 1] == ' '; i += 2) {
        columns.push_back(++column);   // "- - x": each dash opens a sequence inside the one before
      }
      if (columns.size() > max_nesting) refuse_nesting(source_name, line);
    }
    char quote = 0;
    for (size_t i = at; i < end; ++i) {
      const char c = text[i];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '#' && (i == at || text[i - 1] == ' ')) {
        break;
      } else if (c == '[' || c == '{') {
        if (++flow > max_nesting) refuse_nesting(source_name, line);
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
      }
    }
    at = end + 1;
  }
}

}  // namespace

// ---- The interface -----------------------------------------------------------------------------------------

RunConfig parse_config(const std::string& yaml_text, const std::string& source_name,
                       const std::vector<std::string>& overrides) {
  RunConfig config;
  SetAt set_at;
  read_yaml(config_keys(), yaml_text, source_name, config, set_at);
  for (const std::string& text : overrides) read_override(config_keys(), text, config, set_at);
  check_consistency(config, set_at, source_name);
  return config;
}

RunConfig load_config(const std::string& path, const std::vector<std::string>& overrides) {
  if (!path_exists(path)) throw Error("config file '" + path + "' not found");
  const std::string text = read_text_file(path, max_config_bytes);   // a regular file under the ceiling, or why not
  refuse_deep_nesting(text, path);
  return parse_config(text, path, overrides);
}

std::string to_yaml(const RunConfig& config) {
  return "# The effective config of this run: every key, defaults included (configs/README.md explains them).\n" +
         write_yaml(config_keys(), config) + "\n";
}

std::vector<ConfigKeyDoc> config_key_docs() {
  RunConfig defaults;
  std::vector<ConfigKeyDoc> docs;
  for (const Section& s : config_keys().sections) {
    std::string path = s.path;
    if (path.starts_with("model.attention.")) {
      if (path != "model.attention.encoder") continue;     // the three uses share their keys and defaults
      path = "model.attention.<use>";
    }
    for (const Key& key : s.keys) {
      std::string value = value_text(key.field(defaults));
      double most = key.most;
      docs.push_back({path + "." + key.name, value.empty() ? "\"\"" : value, key.doc,
                      most > 0 ? value_text(&most) : ""});
    }
  }
  return docs;
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
