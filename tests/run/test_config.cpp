// test_config.cpp — facts about config files (src/run/config_io.h).
//
// First what a good config gives: the defaults, the shipped configs in configs/, the attention shorthand,
// overrides, and a round trip through to_yaml. Then one test per kind of mistake a user makes when they copy a
// config and edit it: each must end in an attnlab::Error whose message names the key's full path, and the line
// or the suggestion where the user needs them. Last, configs/README.md must document exactly the keys the code
// knows, with the code's defaults, so the documentation cannot drift. No test needs the data files to exist.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "run/config_io.h"
#include "util/error.h"

using namespace attnlab;
namespace fs = std::filesystem;

namespace {

// The smallest valid config: training data, everything else default.
const std::string minimal = "data:\n  train_src: a.src\n  train_tgt: a.tgt\n";

// The message of the attnlab::Error that parsing throws ("" when it does not throw).
std::string error_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    parse_config(yaml, "test.yaml", overrides);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void check_same_attention(const AttentionConfig& a, const AttentionConfig& b) {
  CHECK(a.kind == b.kind);
  CHECK(a.scale == b.scale);
  CHECK(a.has_window == b.has_window);
  CHECK(a.window_left == b.window_left);
  CHECK(a.window_right == b.window_right);
  CHECK(a.memory_slots == b.memory_slots);
  CHECK(a.local_width == b.local_width);
  CHECK(a.hard_expectation == b.hard_expectation);
  CHECK(a.hard_entropy == b.hard_entropy);
  CHECK(a.hard_baseline_decay == b.hard_baseline_decay);
  CHECK(a.hard_eval == b.hard_eval);
  CHECK(a.hard_estimator == b.hard_estimator);
  CHECK(a.hard_reward == b.hard_reward);
  CHECK(a.hard_discount == b.hard_discount);
  CHECK(a.hard_baseline == b.hard_baseline);
  CHECK(a.hard_normalize == b.hard_normalize);
  CHECK(a.hard_clip == b.hard_clip);
  CHECK(a.hard_temperature == b.hard_temperature);
  CHECK(a.hard_temperature_min == b.hard_temperature_min);
  CHECK(a.hard_temperature_decay == b.hard_temperature_decay);
}

// Every field of RunConfig, one by one.
void check_same(const RunConfig& a, const RunConfig& b) {
  CHECK(a.data.train_src == b.data.train_src);
  CHECK(a.data.train_tgt == b.data.train_tgt);
  CHECK(a.data.train_tsv == b.data.train_tsv);
  CHECK(a.data.valid_src == b.data.valid_src);
  CHECK(a.data.valid_tgt == b.data.valid_tgt);
  CHECK(a.data.valid_tsv == b.data.valid_tsv);
  CHECK(a.data.test_src == b.data.test_src);
  CHECK(a.data.test_tgt == b.data.test_tgt);
  CHECK(a.data.test_tsv == b.data.test_tsv);
  CHECK(a.data.max_len == b.data.max_len);
  CHECK(a.data.lowercase == b.data.lowercase);
  CHECK(a.tokenizer.kind == b.tokenizer.kind);
  CHECK(a.tokenizer.vocab_size == b.tokenizer.vocab_size);
  CHECK(a.tokenizer.shared == b.tokenizer.shared);
  CHECK(a.tokenizer.min_count == b.tokenizer.min_count);
  CHECK(a.model.src_vocab == b.model.src_vocab);
  CHECK(a.model.tgt_vocab == b.model.tgt_vocab);
  CHECK(a.model.share_embeddings == b.model.share_embeddings);
  CHECK(a.model.tie_output == b.model.tie_output);
  CHECK(a.model.d_model == b.model.d_model);
  CHECK(a.model.heads == b.model.heads);
  CHECK(a.model.d_ff == b.model.d_ff);
  CHECK(a.model.encoder_layers == b.model.encoder_layers);
  CHECK(a.model.decoder_layers == b.model.decoder_layers);
  CHECK(a.model.dropout == b.model.dropout);
  CHECK(a.model.activation == b.model.activation);
  CHECK(a.model.norm == b.model.norm);
  CHECK(a.model.residual == b.model.residual);
  CHECK(a.model.positional == b.model.positional);
  CHECK(a.model.max_len == b.model.max_len);
  check_same_attention(a.model.encoder_attention, b.model.encoder_attention);
  check_same_attention(a.model.decoder_attention, b.model.decoder_attention);
  check_same_attention(a.model.cross_attention, b.model.cross_attention);
  CHECK(a.train.seed == b.train.seed);
  CHECK(a.train.threads == b.train.threads);
  CHECK(a.train.batch_tokens == b.train.batch_tokens);
  CHECK(a.train.max_steps == b.train.max_steps);
  CHECK(a.train.max_minutes == b.train.max_minutes);
  CHECK(a.train.optimizer == b.train.optimizer);
  CHECK(a.train.lr == b.train.lr);
  CHECK(a.train.beta1 == b.train.beta1);
  CHECK(a.train.beta2 == b.train.beta2);
  CHECK(a.train.eps == b.train.eps);
  CHECK(a.train.weight_decay == b.train.weight_decay);
  CHECK(a.train.schedule == b.train.schedule);
  CHECK(a.train.warmup_steps == b.train.warmup_steps);
  CHECK(a.train.label_smoothing == b.train.label_smoothing);
  CHECK(a.train.clip_norm == b.train.clip_norm);
  CHECK(a.train.accumulate == b.train.accumulate);
  CHECK(a.train.valid_every == b.train.valid_every);
  CHECK(a.train.valid_samples == b.train.valid_samples);
  CHECK(a.train.checkpoint_every == b.train.checkpoint_every);
  CHECK(a.train.keep_last == b.train.keep_last);
  CHECK(a.train.log_every == b.train.log_every);
  CHECK(a.decode.beam == b.decode.beam);
  CHECK(a.decode.length_penalty == b.decode.length_penalty);
  CHECK(a.decode.max_len_ratio == b.decode.max_len_ratio);
  CHECK(a.decode.max_len_extra == b.decode.max_len_extra);
}

std::vector<fs::path> shipped_configs() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(ATTNLAB_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

// ---- What a good config gives -------------------------------------------------------------------------------

TEST_CASE("keys left out of a config keep the defaults of RunConfig") {
  RunConfig c = parse_config(minimal, "test.yaml");
  RunConfig defaults;
  defaults.data.train_src = "a.src";
  defaults.data.train_tgt = "a.tgt";
  check_same(c, defaults);
  CHECK(c.train.max_steps == 10000);
  CHECK(c.tokenizer.kind == TokenizerKind::word);
  CHECK(c.model.cross_attention.kind == AttentionKind::scaled_dot);
  CHECK_FALSE(c.model.decoder_attention.has_window);
}

TEST_CASE("an empty section (every key under it commented out) is the same as leaving it out") {
  RunConfig c = parse_config(minimal + "decode:\ntrain:\n  # max_steps: 5\n", "test.yaml");
  CHECK(c.decode.beam == 1);
  CHECK(c.train.max_steps == 10000);
}

TEST_CASE("every shipped config in configs/ parses, and the demo config is the small toy-en-fr model") {
  std::vector<fs::path> files = shipped_configs();
  std::set<std::string> names;
  for (const fs::path& file : files) names.insert(file.filename().string());
  for (const char* expected : {"copy.yaml", "reverse.yaml", "toy-en-fr.yaml", "multi30k.yaml", "tatoeba-en-fr.yaml"}) {
    CHECK_MESSAGE(names.count(expected) == 1, "configs/", expected, " is missing");
  }
  for (const fs::path& file : files) {
    CAPTURE(file.string());
    CHECK_NOTHROW(load_config(file.string()));
  }
  RunConfig toy = load_config(std::string(ATTNLAB_SOURCE_DIR) + "/configs/toy-en-fr.yaml");
  CHECK(toy.data.train_src == "data/toy-en-fr/train.en");
  CHECK(toy.data.train_tgt == "data/toy-en-fr/train.fr");
  CHECK(toy.model.d_model == 128);
  CHECK(toy.model.heads == 4);
  CHECK(toy.train.schedule == ScheduleKind::noam);
  CHECK(toy.train.max_minutes == 10);
  RunConfig tatoeba = load_config(std::string(ATTNLAB_SOURCE_DIR) + "/configs/tatoeba-en-fr.yaml");
  CHECK(!tatoeba.data.train_tsv.empty());
  RunConfig multi30k = load_config(std::string(ATTNLAB_SOURCE_DIR) + "/configs/multi30k.yaml");
  CHECK(multi30k.tokenizer.kind == TokenizerKind::bpe);
  CHECK(multi30k.data.train_src.ends_with("train.de"));
  CHECK(multi30k.data.train_tgt.ends_with("train.en"));
}

TEST_CASE("model.attention takes one kind per use, a mapping per use, or one kind for all three") {
  RunConfig each = parse_config(minimal + R"(
model:
  attention:
    encoder: linear
    decoder: {kind: scaled_dot, scale: false, window: [2, 0]}
    cross: additive
)",
                                "test.yaml");
  CHECK(each.model.encoder_attention.kind == AttentionKind::linear);
  CHECK(each.model.decoder_attention.kind == AttentionKind::scaled_dot);
  CHECK_FALSE(each.model.decoder_attention.scale);
  CHECK(each.model.decoder_attention.has_window);
  CHECK(each.model.decoder_attention.window_left == 2);
  CHECK(each.model.decoder_attention.window_right == 0);
  CHECK(each.model.cross_attention.kind == AttentionKind::additive);

  RunConfig all = parse_config(minimal + "model:\n  attention: linear\n", "test.yaml");
  CHECK(all.model.encoder_attention.kind == AttentionKind::linear);
  CHECK(all.model.decoder_attention.kind == AttentionKind::linear);
  CHECK(all.model.cross_attention.kind == AttentionKind::linear);

  RunConfig external =
      parse_config(minimal + "model:\n  attention: {encoder: external, decoder: external}\n", "test.yaml");
  CHECK(external.model.encoder_attention.kind == AttentionKind::external);
  CHECK(external.model.cross_attention.kind == AttentionKind::scaled_dot);
}

TEST_CASE("overrides set nested keys after the file, their value read as YAML") {
  RunConfig c = parse_config(
      minimal + "train:\n  max_steps: 5000\nmodel:\n  attention: sagan\n", "test.yaml",
      {"train.max_steps=100", "model.attention.encoder.kind=linear", "model.attention.decoder.window=[2,0]",
       "train.lr=0.5", "data.lowercase=true", "tokenizer={kind: char, shared: false}"});
  CHECK(c.train.max_steps == 100);
  CHECK(c.train.lr == 0.5);
  CHECK(c.data.lowercase);
  CHECK(c.tokenizer.kind == TokenizerKind::character);
  CHECK_FALSE(c.tokenizer.shared);
  CHECK(c.model.encoder_attention.kind == AttentionKind::linear);
  CHECK(c.model.decoder_attention.kind ==
        AttentionKind::sagan);  // from the file's shorthand; only the window was overridden
  CHECK(c.model.decoder_attention.has_window);
  CHECK(c.model.decoder_attention.window_left == 2);
  CHECK(c.model.cross_attention.kind == AttentionKind::sagan);

  RunConfig shorthand = parse_config(minimal, "test.yaml", {"model.attention=additive"});
  CHECK(shorthand.model.cross_attention.kind == AttentionKind::additive);
  RunConfig one_use = parse_config(minimal, "test.yaml", {"model.attention.cross=simplified"});
  CHECK(one_use.model.cross_attention.kind == AttentionKind::simplified);
  CHECK(one_use.model.encoder_attention.kind == AttentionKind::scaled_dot);
  RunConfig no_window = parse_config(minimal + "model: {attention: {decoder: {window: [3, 1]}}}\n", "test.yaml",
                                     {"model.attention.decoder.window=none"});
  CHECK_FALSE(no_window.model.decoder_attention.has_window);
}

TEST_CASE("to_yaml writes every key, and reading it back gives the same config") {
  // Keys away from their defaults, so a key that to_yaml forgot would come back different. (Not all can be: a
  // split is _src/_tgt or _tsv, and share_embeddings: true needs tokenizer.shared: true.)
  const std::string everything = R"(
data: {train_tsv: "corpus/train file.tsv", valid_src: v.src, valid_tgt: v.tgt, test_tsv: t.tsv,
       max_len: 50, lowercase: true}
tokenizer: {kind: unigram, vocab_size: 4000, shared: false, min_count: 2}
model:
  share_embeddings: false
  tie_output: true
  d_model: 96
  heads: 3
  d_ff: 200
  encoder_layers: 1
  decoder_layers: 4
  dropout: 0.25
  activation: gelu
  norm: pre
  residual: false
  positional: learned
  max_len: 300
  attention:
    encoder: {kind: external, memory_slots: 16}
    decoder: {kind: additive, scale: false, window: [5, 0]}
    cross: {kind: simplified, window: [1, 2]}
train: {seed: 18446744073709551615, threads: 3, batch_tokens: 1000, max_steps: 123, max_minutes: 2.5,
        optimizer: adamw, lr: 3e-4, beta1: 0.8, beta2: 0.999, eps: 1e-8, weight_decay: 0.01, schedule: cosine,
        warmup_steps: 0, label_smoothing: 0.0, clip_norm: 0.5, accumulate: 4, valid_every: 7, valid_samples: 0,
        checkpoint_every: 9, keep_last: 0, log_every: 11}
decode: {beam: 5, length_penalty: 1.0, max_len_ratio: 2, max_len_extra: 0}
)";
  RunConfig c = parse_config(everything, "everything.yaml");
  CHECK(c.data.train_tsv == "corpus/train file.tsv");
  CHECK(c.model.residual == false);
  CHECK(c.train.seed == 18446744073709551615u);
  CHECK(c.train.lr == 3e-4);
  CHECK(c.model.encoder_attention.memory_slots == 16);
  const std::string yaml = to_yaml(c);
  RunConfig back = parse_config(yaml, "to_yaml");
  check_same(c, back);
  CHECK(to_yaml(back) == yaml);

  // Paths that YAML would misread if written bare come back unchanged.
  for (const std::string path : {"null", "~", "true", "a: b", "#x", " lead", "it's", "[x]", "100", "a\tb"}) {
    CAPTURE(path);
    RunConfig odd = parse_config(minimal, "test.yaml");
    odd.data.test_tsv = path;
    CHECK(parse_config(to_yaml(odd), "to_yaml").data.test_tsv == path);
  }

  RunConfig defaults = parse_config(minimal, "test.yaml");
  check_same(parse_config(to_yaml(defaults), "to_yaml"), defaults);
  for (const ConfigKeyDoc& key : config_key_docs()) {  // every key is written, the attention ones once per use
    std::string name = key.path.substr(key.path.rfind('.') + 1) + ":";
    CHECK_MESSAGE(contains(yaml, name), key.path, " is missing from to_yaml");
  }
}

TEST_CASE("load_config reads a file and applies overrides; a missing file is named") {
  fs::path directory = fs::path(ATTNLAB_BINARY_DIR) / "test_config";
  fs::create_directories(directory);
  fs::path file = directory / "run.yaml";
  std::ofstream(file) << minimal << "train:\n  max_steps: 7\n";
  RunConfig c = load_config(file.string(), {"train.log_every=3"});
  CHECK(c.train.max_steps == 7);
  CHECK(c.train.log_every == 3);
  CHECK_THROWS_WITH_AS(load_config((directory / "nope.yaml").string()),
                       ("config file '" + (directory / "nope.yaml").string() + "' not found").c_str(), Error);
}

// ---- Mistakes, one message each ------------------------------------------------------------------------------

TEST_CASE("a YAML syntax error names the file, the line and the column") {
  std::string message = error_of(minimal + "train:\n  max_steps: [1, 2\n");
  CHECK(contains(message, "test.yaml: YAML syntax error at line "));
  CHECK(contains(message, ", column "));
  CHECK(error_of("data:\n  train_src: a\n bad: 1\n").starts_with("test.yaml: YAML syntax error at line 3"));
}

TEST_CASE("an unknown key names its full path, the closest valid key and the line") {
  CHECK(error_of(minimal + "train:\n  max_step: 100\n") ==
        "test.yaml: unknown key 'train.max_step' (did you mean 'train.max_steps'?) at line 5");
  CHECK(contains(error_of(minimal + "trian:\n  lr: 1\n"), "unknown key 'trian' (did you mean 'train'?) at line 4"));
  CHECK(contains(error_of(minimal + "model:\n  attention:\n    decoder: {kind: linear, windw: [1, 0]}\n"),
                 "unknown key 'model.attention.decoder.windw' (did you mean 'model.attention.decoder.window'?)"));
  CHECK(contains(error_of(minimal + "model:\n  attention:\n    self: linear\n"), "unknown key 'model.attention.self'"));
  // A key written in the wrong section: the message says where it belongs.
  CHECK(contains(error_of(minimal + "model:\n  lr: 0.1\n"),
                 "unknown key 'model.lr' (did you mean 'train.lr'?) at line 5"));
  // Nothing close: the message lists the keys of the section.
  std::string far = error_of(minimal + "decode:\n  temperature: 0.7\n");
  CHECK(contains(far, "unknown key 'decode.temperature' (the keys of decode are beam, length_penalty"));
}

TEST_CASE("a key or a section set twice is refused, with both lines") {
  CHECK(error_of(minimal + "train:\n  lr: 1\n  lr: 2\n") ==
        "test.yaml: train.lr is set twice (lines 5 and 6); keep one");
  CHECK(error_of(minimal + "data:\n  max_len: 5\n") ==
        "test.yaml: data is set twice (lines 1 and 4); put all its keys under one 'data:'");
}

TEST_CASE("model.src_vocab and model.tgt_vocab are refused: the tokenizer decides them") {
  std::string message = error_of(minimal + "model:\n  d_model: 64\n  src_vocab: 8000\n");
  CHECK(contains(message, "model.src_vocab is not a config key: the vocabulary sizes come from the tokenizer"));
  CHECK(contains(message, "(line 6)"));
  CHECK(contains(error_of(minimal, {"model.tgt_vocab=100"}), "model.tgt_vocab is not a config key"));
}

TEST_CASE("a value of the wrong type names the key, what was expected, what was found and the line") {
  CHECK(error_of(minimal + "train:\n  lr: fast\n") ==
        "test.yaml: train.lr: expected a number > 0, got 'fast' (line 5)");
  CHECK(error_of(minimal + "train:\n  max_steps: 100.5\n") ==
        "test.yaml: train.max_steps: expected a whole number > 0, got '100.5' (line 5)");
  CHECK(contains(error_of(minimal + "  lowercase: maybe\n"), "expected true or false, got 'maybe'"));
  CHECK(contains(error_of(minimal + "model:\n  heads: [4]\n"), "model.heads: expected a whole number > 0, got '[4]'"));
  CHECK(contains(error_of(minimal + "train:\n  lr:\n"), "train.lr: expected a number > 0, got nothing (line 5)"));
  CHECK(contains(error_of("data:\n  train_src: {a: 1}\n"),
                 "data.train_src: expected a file path, got '{a: 1}' (line 2)"));
  CHECK(contains(error_of(minimal + "train: fast\n"), "train: expected a mapping of keys (seed, threads"));
  CHECK(contains(error_of("- data\n"), "the file: expected a mapping of keys (data, tokenizer, model, train, decode)"));
  CHECK(contains(error_of(minimal + "train:\n  seed: -1\n"), "train.seed: expected a whole number ≥ 0, got '-1'"));
  CHECK(contains(error_of(minimal + "train:\n  lr: .nan\n"), "train.lr: expected a number > 0, got '.nan'"));
}

TEST_CASE("out-of-range values are refused with the range, and sizes above their ceiling with the ceiling") {
  struct Case {
    std::string yaml, expected;
  };
  for (const Case& c : {
           Case{"model:\n  d_model: 0\n",
                "model.d_model: expected a whole number > 0 and at most 65536, got '0' (line 5)"},
           Case{"model:\n  dropout: 1\n", "model.dropout: expected a number in [0, 1), got '1' (line 5)"},
           Case{"train:\n  label_smoothing: -0.1\n", "train.label_smoothing: expected a number in [0, 1)"},
           Case{"train:\n  lr: 0\n", "train.lr: expected a number > 0, got '0'"},
           Case{"train:\n  beta2: 1.0\n", "train.beta2: expected a number in [0, 1)"},
           Case{"train:\n  eps: 0\n", "train.eps: expected a number > 0"},
           Case{"train:\n  accumulate: 0\n", "train.accumulate: expected a whole number > 0"},
           Case{"train:\n  threads: -2\n", "train.threads: expected a whole number ≥ 0"},
           Case{"decode:\n  beam: 0\n", "decode.beam: expected a whole number > 0"},
           Case{"model:\n  attention:\n    encoder: {kind: external, memory_slots: 0}\n",
                "model.attention.encoder.memory_slots: expected a whole number > 0"},
           Case{"model:\n  attention:\n    decoder: {window: [2]}\n",
                "model.attention.decoder.window: expected none or [left, right] with two whole numbers ≥ 0"},
           Case{"model:\n  attention:\n    decoder: {window: [-1, 0]}\n", "got '[-1, 0]'"},
           // Sizes that would reach an allocation or an overflow have ceilings, and the message gives them.
           Case{"model:\n  d_model: 1000000000\n",
                "model.d_model: expected a whole number > 0 and at most 65536, "
                "got '1000000000' (line 5)"},
           Case{"model:\n  d_ff: 2000000\n", "model.d_ff: expected a whole number > 0 and at most 1048576"},
           Case{"model:\n  encoder_layers: 100000\n",
                "model.encoder_layers: expected a whole number > 0 and at most 1000"},
           Case{"model:\n  max_len: 9223372036854775807\n", "model.max_len: expected a whole number > 0 and at most"},
           Case{"model:\n  attention:\n    encoder: {kind: external, memory_slots: 100000000}\n",
                "memory_slots: expected a whole number > 0 and at most 65536"},
           Case{"train:\n  threads: 1000000\n", "train.threads: expected a whole number ≥ 0 and at most 1024"},
           Case{"decode:\n  beam: 1000000\n", "decode.beam: expected a whole number > 0 and at most 1000"},
           Case{"decode:\n  max_len_extra: 9223372036854775807\n",
                "decode.max_len_extra: expected a whole number ≥ 0 and at most 1000"},
           Case{"decode:\n  max_len_ratio: 1e300\n", "decode.max_len_ratio: expected a number > 0 and at most 10"},
       }) {
    CAPTURE(c.yaml);
    std::string message = error_of(minimal + c.yaml);
    CHECK_MESSAGE(contains(message, c.expected), message);
  }
  RunConfig at_the_ceiling = parse_config(minimal + "train:\n  threads: 1024\ndecode:\n  max_len_ratio: 10\n", "t");
  CHECK(at_the_ceiling.train.threads == 1024);
  CHECK(at_the_ceiling.decode.max_len_ratio == 10);
}

TEST_CASE("a message quotes at most a short prefix of a long bad value, and says how long it was") {
  const std::string long_value(10 * 1024 * 1024, 'x');
  const std::string in_file = error_of(minimal + "train:\n  lr: " + long_value + "\n");
  CHECK_MESSAGE(in_file.size() < 300, in_file.substr(0, 300));
  CHECK(contains(in_file, "train.lr: expected a number > 0, got 'xxxx"));
  CHECK(contains(in_file, "(10485760 bytes)"));
  const std::string in_set = error_of(minimal, {"train.lr=" + long_value});
  CHECK_MESSAGE(in_set.size() < 300, in_set.substr(0, 300));
  const std::string unknown = error_of(minimal, {"train." + long_value + "=1"});
  CHECK_MESSAGE(unknown.size() < 1000, unknown.substr(0, 300));
}

TEST_CASE("a kind outside its fixed list is refused with the list and the closest") {
  CHECK(error_of(minimal + "tokenizer:\n  kind: wrod\n") ==
        "test.yaml: tokenizer.kind: expected one of word, char, bpe, unigram, got 'wrod' — did you mean 'word'? (line "
        "5)");
  CHECK(contains(error_of(minimal + "train:\n  optimizer: sgd\n"), "train.optimizer: expected one of adam, adamw"));
  CHECK(contains(error_of(minimal + "train:\n  schedule: cosin\n"), "did you mean 'cosine'?"));
  CHECK(contains(error_of(minimal + "model:\n  norm: pr\n"), "model.norm: expected one of post, pre"));
  CHECK(contains(error_of(minimal + "model:\n  activation: selu\n"), "model.activation: expected one of relu, gelu"));
  CHECK(contains(error_of(minimal + "model:\n  positional: rope\n"),
                 "model.positional: expected one of sinusoidal, learned, none"));
  CHECK(contains(error_of(minimal + "model:\n  attention:\n    encoder: scaled_dott\n"),
                 "model.attention.encoder.kind: expected one of scaled_dot, additive"));
  CHECK(contains(error_of(minimal + "model:\n  attention: lineer\n"), "did you mean 'linear'?"));
  CHECK(contains(error_of(minimal + "model:\n  attention:\n    cross:\n      kind: hard\n      hard_eval: mode\n"),
                 "model.attention.cross.hard_eval: expected one of argmax, expectation, sample, got 'mode'"));
  CHECK(contains(error_of(minimal + "model:\n  task: qa\n"), "model.task: expected one of translation, cloze"));
  CHECK(contains(error_of(minimal + "model:\n  reader: aoa_reader\n"), "did you mean 'as_reader'?"));
}

TEST_CASE("external attention cannot be cross-attention, whichever way the config says it") {
  std::string shorthand = error_of(minimal + "model:\n  attention: external\n");
  CHECK(contains(shorthand, "model.attention: 'external' would set all three uses"));
  CHECK(contains(shorthand, "cannot be cross-attention"));
  CHECK(contains(shorthand, "(line 5)"));
  std::string cross = error_of(minimal + "model:\n  attention:\n    cross: external\n");
  CHECK(contains(cross, "model.attention.cross.kind (line 6): external attention cannot be cross-attention"));
  CHECK(contains(error_of(minimal, {"model.attention.cross.kind=external"}),
                 "model.attention.cross.kind (--set model.attention.cross.kind=external): external attention"));
  CHECK(contains(error_of(minimal + "model:\n  attention:\n    encoder: {kind: linear, window: [1, 1]}\n"),
                 "model.attention.encoder.window (line 6): a window restricts a softmax over keys"));
}

TEST_CASE("data: each split is _src and _tgt together or _tsv alone, and the training split is required") {
  CHECK(contains(error_of("data:\n  train_src: a.src\n"), "data.train_src (line 2) is set but data.train_tgt is not"));
  CHECK(
      contains(error_of(minimal + "  valid_tgt: v.tgt\n"), "data.valid_tgt (line 4) is set but data.valid_src is not"));
  CHECK(contains(error_of(minimal + "  train_tsv: a.tsv\n"),
                 "data.train_tsv (line 4) and data.train_src (line 2) are both set"));
  CHECK(contains(error_of("tokenizer:\n  kind: char\n"), "test.yaml: no training data: set data.train_src"));
  CHECK(contains(error_of(""), "no training data"));
  CHECK_NOTHROW(parse_config("data:\n  train_tsv: a.tsv\n", "test.yaml"));
}

TEST_CASE("keys that depend on each other are checked together") {
  CHECK(contains(error_of(minimal + "model:\n  d_model: 100\n  heads: 3\n"),
                 "model.d_model = 100 (line 5) must be divisible by model.heads = 3 (line 6)"));
  CHECK(contains(error_of(minimal + "tokenizer:\n  shared: false\nmodel:\n  share_embeddings: true\n"),
                 "model.share_embeddings (line 7) needs one vocabulary for both sides"));
  CHECK(contains(error_of(minimal + "model:\n  positional: learned\n  max_len: 50\n"),
                 "model.max_len = 50 (line 6) is too small for learned positions"));
  CHECK(contains(error_of(minimal + "train:\n  warmup_steps: 0\n"),
                 "train.warmup_steps (line 5) must be at least 1 for the noam schedule"));
  CHECK(contains(error_of(minimal + "train:\n  weight_decay: 0.01\n"),
                 "train.weight_decay (line 5) is used by adamw only"));
  CHECK(contains(error_of(minimal + "tokenizer:\n  kind: bpe\n  vocab_size: 0\n"),
                 "tokenizer.vocab_size (line 6) must be more than 4"));
}

TEST_CASE("overrides get the same checks as the file, and name the --set they came from") {
  CHECK(error_of(minimal, {"train.max_step=100"}) ==
        "--set train.max_step=100: unknown key 'train.max_step' (did you mean 'train.max_steps'?)");
  CHECK(error_of(minimal, {"train.lr=fast"}) == "--set train.lr=fast: train.lr: expected a number > 0, got 'fast'");
  CHECK(contains(error_of(minimal, {"model.attention.decoder.window=[2,"}), "is not valid YAML"));
  CHECK(contains(error_of(minimal, {"train.max_steps"}), "--set train.max_steps: expected key=value"));
  CHECK(contains(error_of(minimal, {"train..lr=1"}), "'train..lr' is not a key path"));
  CHECK(contains(error_of(minimal, {"model.attention=external"}), "cannot be cross-attention"));
}

// ---- The documentation ----------------------------------------------------------------------------------------

TEST_CASE(
    "configs/README.md documents every key with the code's default and ceiling, and no key the code does not "
    "know") {
  const std::string readme = read_text(fs::path(ATTNLAB_SOURCE_DIR) / "configs" / "README.md");
  REQUIRE_FALSE(readme.empty());
  // Table rows look like: | `train.max_steps` | `10000` | optimizer steps |
  std::map<std::string, std::string> documented;  // key → default, as the README writes them
  std::map<std::string, std::string> rows;        // key → its whole row
  std::istringstream lines(readme);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("| `")) continue;
    const size_t key_end = line.find('`', 3);
    const std::string key = line.substr(3, key_end - 3);
    if (key.find('.') == std::string::npos) continue;  // other tables (attention kinds, token ids)
    const size_t value_begin = line.find('`', key_end + 1);
    const size_t value_end = line.find('`', value_begin + 1);
    documented[key] = line.substr(value_begin + 1, value_end - value_begin - 1);
    rows[key] = line;
  }
  std::set<std::string> known;
  for (const ConfigKeyDoc& key : config_key_docs()) {
    known.insert(key.path);
    CAPTURE(key.path);
    REQUIRE_MESSAGE(documented.count(key.path) == 1, key.path, " is not in configs/README.md");
    CHECK_MESSAGE(documented[key.path] == key.default_value, key.path, ": README says ", documented[key.path],
                  ", the code ", key.default_value);
    if (!key.most.empty()) {
      CHECK_MESSAGE(contains(rows[key.path], "at most " + key.most), key.path,
                    ": README does not give its ceiling, "
                    "at most ",
                    key.most);
    }
  }
  for (const auto& [key, value] : documented) {
    const std::string& documented_key = key;
    CHECK_MESSAGE(known.count(documented_key) == 1, "configs/README.md documents '", documented_key,
                  "', which is not a config key");
  }
}

TEST_CASE(
    "model.path takes paper or fused and names the key when it is neither; the old model.kernels still "
    "loads, as model.path") {
  const std::string data = "data: {train_src: a.src, train_tgt: a.tgt}\n";
  const std::string yaml = data + "model:\n  path: fast\n";
  CHECK_THROWS_WITH_AS(parse_config(yaml, "a.yaml"), doctest::Contains("model.path: expected one of paper, fused"),
                       Error);
  CHECK(parse_config(data + "model:\n  path: paper\n", "a.yaml").model.path == ComputePath::paper);
  CHECK(parse_config(data + "model:\n  kernels: reference\n", "a.yaml").model.path == ComputePath::paper);
  CHECK(parse_config(data + "model:\n  kernels: fused\n", "a.yaml").model.path == ComputePath::fused);
  CHECK(parse_config(data, "a.yaml", {"model.kernels=reference"}).model.path == ComputePath::paper);
  CHECK_THROWS_WITH_AS(parse_config(data + "model:\n  kernels: fast\n", "a.yaml"),
                       doctest::Contains("model.kernels (now model.path): expected one of fused, reference"), Error);
  CHECK(to_yaml(parse_config(data + "model:\n  kernels: reference\n", "a.yaml")).find("path: paper") !=
        std::string::npos);
}
