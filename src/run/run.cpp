// run.cpp — tokenizers in the run folder, and loading a run's model for translation and inspection.
#include "run/run.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "data/corpus.h"
#include "decode/greedy.h"
#include "decode/translate.h"
#include "run/checkpoint_average.h"
#include "run/config_io.h"
#include "tensor/product/bf16_product.h"
#include "train/checkpoint.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json_teardown.h"
#include "util/quote.h"
#include "util/utf8.h"

namespace attnlab {
inline namespace ATTNLAB_PRECISION {

namespace fs = std::filesystem;

std::string checkpoints_dir(const std::string& run_dir) {
  return run_dir + "/checkpoints";
}

namespace {

// tokenizers.json records which tokenizer files the run has, so resume and translate load exactly those.
std::string tokenizers_index(const std::string& run_dir) {
  return run_dir + "/tokenizers.json";
}

// The file prefix tokenizers.json gives for one side: a plain file name in the run folder (prepare_tokenizers
// writes "tokenizer", "src_tokenizer" or "tgt_tokenizer"), or `fallback` when the entry is missing.
std::string index_entry(const nlohmann::json& index, const std::string& side, const std::string& fallback,
                        const std::string& index_path) {
  auto entry = index.find(side);
  if (entry == index.end()) return fallback;
  if (!entry->is_string() || entry->get<std::string>().empty() ||
      entry->get<std::string>().find('/') != std::string::npos) {
    const std::string found = entry->is_string() ? quote(entry->get<std::string>()) : std::string(entry->type_name());
    throw Error(index_path + ": \"" + side +
                "\" must be the name of a tokenizer file in the run folder, such as "
                "\"" +
                fallback + "\", but it is " + found + "; the file is damaged");
  }
  return entry->get<std::string>();
}

}  // namespace

RunTokenizers load_run_tokenizers(const RunConfig& config, const std::string& run_dir) {
  const std::string index_path = tokenizers_index(run_dir);
  if (!path_exists(index_path)) {
    throw Error("'" + run_dir + "' has no tokenizers.json: it is not a run folder, or its training never started");
  }
  nlohmann::json index;
  FreedWithoutAllocating<nlohmann::json> freed(index);  // out of memory ends in bad_alloc, not terminate
  try {
    const std::string text = read_text_file(index_path);
    // Parsed straight into `index` (json::parse would build a copy of its own, freed by the library's destructor).
    nlohmann::detail::json_sax_dom_parser<nlohmann::json> build(index);
    nlohmann::json::sax_parse(text, &build);
  } catch (const nlohmann::json::exception& e) {
    throw Error(index_path + " is not valid JSON: " + library_reason(e.what()));
  }
  if (!index.is_object()) {
    throw Error(index_path + " must be a JSON object {\"src\": …, \"tgt\": …}, but it is " +
                std::string(index.type_name()) + "; the file is damaged");
  }
  RunTokenizers tokenizers;
  tokenizers.src = load_tokenizer(config.tokenizer, run_dir + "/" + index_entry(index, "src", "tokenizer", index_path));
  tokenizers.tgt = config.tokenizer.shared
                       ? tokenizers.src
                       : std::shared_ptr<Tokenizer>(load_tokenizer(
                             config.tokenizer, run_dir + "/" + index_entry(index, "tgt", "tgt_tokenizer", index_path)));
  return tokenizers;
}

RunTokenizers prepare_tokenizers(const RunConfig& config, const std::string& run_dir,
                                 const std::vector<std::string>& train_src, const std::vector<std::string>& train_tgt) {
  if (path_exists(tokenizers_index(run_dir))) return load_run_tokenizers(config, run_dir);
  RunTokenizers tokenizers;
  nlohmann::json index{{"kind", name_of(config.tokenizer.kind)}, {"shared", config.tokenizer.shared}};
  if (config.tokenizer.shared) {
    std::vector<std::string> both(train_src);
    both.insert(both.end(), train_tgt.begin(), train_tgt.end());
    const std::string prefix = run_dir + "/tokenizer";
    tokenizers.src = train_tokenizer(config.tokenizer, both, prefix);
    tokenizers.src->save(prefix);
    tokenizers.tgt = tokenizers.src;
    index["src"] = index["tgt"] = "tokenizer";
  } else {
    tokenizers.src = train_tokenizer(config.tokenizer, train_src, run_dir + "/src_tokenizer");
    tokenizers.tgt = train_tokenizer(config.tokenizer, train_tgt, run_dir + "/tgt_tokenizer");
    tokenizers.src->save(run_dir + "/src_tokenizer");
    tokenizers.tgt->save(run_dir + "/tgt_tokenizer");
    index["src"] = "src_tokenizer";
    index["tgt"] = "tgt_tokenizer";
  }
  write_file_atomically(tokenizers_index(run_dir), index.dump(2) + "\n");
  return tokenizers;
}

ModelConfig model_config_for(const RunConfig& config, const RunTokenizers& tokenizers) {
  ModelConfig model = config.model;
  model.src_vocab = tokenizers.src->vocab_size();
  model.tgt_vocab = tokenizers.tgt->vocab_size();
  if (model.share_embeddings && !config.tokenizer.shared) {
    throw Error("model.share_embeddings needs one vocabulary for both sides: set tokenizer.shared: true");
  }
  return model;
}

std::string checkpoint_to_load(const RunConfig& config, const std::string& run_dir, const std::string& which) {
  CheckpointDirectory checkpoints(checkpoints_dir(run_dir), config.train.keep_last);
  if (which == "best" && checkpoints.has_best()) return checkpoints.best_path();
  if (which == "average") {  // what `attnlab average` writes (checkpoint_average.h)
    const std::string average = average_checkpoint_path(run_dir);
    if (!path_exists(average)) {
      throw Error("'" + run_dir +
                  "' has no averaged checkpoint (checkpoints/average.safetensors); write one with "
                  "attnlab average --run " +
                  run_dir);
    }
    return average;
  }
  if (which == "best" || which == "latest") {
    std::optional<std::string> latest = checkpoints.latest();
    if (!latest) throw Error("'" + run_dir + "' has no checkpoint yet");
    return *latest;
  }
  return which;
}

RunConfig load_run_config(const std::string& run_dir) {
  const std::string config_path = run_dir + "/config.yaml";
  if (!path_exists(config_path)) {
    throw Error("'" + run_dir + "' is not a run folder (it has no config.yaml); train one with attnlab train");
  }
  RunConfig config = load_config(config_path);
  // A run trained with bfloat16 products is read on any CPU: where there is no AVX512_BF16, the emulated product
  // gives the very numbers the fast one would (slowly), and the reader is told. Training stays refused there
  // (resolve_precision): a run is not slowed many times over without being asked.
  if (config.model.precision == Precision::bfloat16 && !bf16_fast_available()) {
    config.model.precision = Precision::bfloat16_emulated;
    static std::mutex told_mutex;  // said once per run folder: serve and eval read a run many times
    static std::set<std::string> told;
    const std::lock_guard<std::mutex> lock(told_mutex);
    if (!told.insert(run_dir).second) return config;
    spdlog::warn(
        "{} was trained with model.precision bfloat16, and {}: reading it with bfloat16-emulated "
        "(the same numbers, computed many times slower)",
        run_dir, bf16_support());
  }
  return config;
}

LoadedRun load_run(const std::string& run_dir, const std::string& which) {
  LoadedRun run;
  run.config = load_run_config(run_dir);
  if (run.config.model.task == Task::cloze) {
    throw Error("'" + run_dir +
                "' is a cloze reader (model.task: cloze), not a translation model: attnlab eval and "
                "attnlab attention read it; translate, trace, report and serve need a translation run");
  }
  if (run.config.model.task == Task::language_model) {
    throw Error("'" + run_dir +
                "' is a language model (model.task: language_model), not a translation model: "
                "attnlab generate, trace, attention, report and serve read it; translate, eval and align need a "
                "translation run");
  }
  run.tokenizers = load_run_tokenizers(run.config, run_dir);
  Generator init(run.config.train.seed);
  run.model = std::make_unique<Seq2Seq>(model_config_for(run.config, run.tokenizers), init);

  run.checkpoint_path = checkpoint_to_load(run.config, run_dir, which);
  run.step = load_checkpoint(run.checkpoint_path, *run.model, nullptr).step;
  return run;
}

std::string clean_like_training(const RunConfig& config, const std::string& text) {
  std::string clean = normalize_spaces(text);
  return config.data.lowercase ? lowercase(clean) : clean;
}

// A sentence longer than the model can read is cut, not refused: one long line in a stream must not stop the
// lines after it, nor shift the output against the input. (`attnlab eval` refuses such a sentence instead, since
// scores of a cut sentence would mislead.)
std::vector<int32_t> encode_line(const LoadedRun& run, const std::string& line, const std::string& where) {
  if (size_t bad = first_invalid_utf8(line); bad != std::string_view::npos) {
    throw Error(where + " is not valid UTF-8 (byte " + std::to_string(bad + 1) + "); attnlab reads UTF-8 text");
  }
  std::vector<int32_t> ids = run.tokenizers.src->encode(clean_like_training(run.config, line));
  const int64_t positions = position_limit(run.model->config());
  const int64_t limit = std::min(positions, translate_source_tokens_most);
  if (static_cast<int64_t>(ids.size()) > limit) {
    const std::string why = positions <= translate_source_tokens_most
                                ? "model.max_len = " + std::to_string(limit) + ", the positions this model learned"
                                : "the " + std::to_string(limit) + " tokens attnlab translate reads at once";
    spdlog::warn("{} has {} tokens, more than {}; translating its first {} tokens", where, ids.size(), why, limit);
    ids.resize(static_cast<size_t>(limit));
  }
  return ids;
}

std::string translate_line(const LoadedRun& run, const DecodeConfig& decode, const std::string& line,
                           const std::string& where) {
  std::vector<int32_t> ids = encode_line(run, line, where);
  if (ids.empty()) return std::string();
  std::vector<std::vector<int32_t>> out = translate_ids(*run.model, pad_batch({ids}), decode);
  return run.tokenizers.tgt->decode(out[0]);
}

}  // namespace ATTNLAB_PRECISION
}  // namespace attnlab
