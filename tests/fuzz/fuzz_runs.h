// fuzz_runs.h — the two tiny untrained runs the translation and HTTP targets translate with (fuzz_translate.cpp,
// fuzz_http.cpp): one character-level with sinusoidal positions and beam 2, one word-level with learned positions,
// shared embeddings and greedy decoding, so a fuzzed sentence meets both tokenizers and both decoders. d_model 8
// and a few output tokens at most: an execution must take microseconds, not a real translation's time.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "fuzz_support.h"
#include "run/config_io.h"
#include "run/run.h"

namespace attnlab::fuzz {

inline const char* sinusoidal_char_run = R"(
tokenizer: {kind: char, shared: true}
data: {train_src: unused.src, train_tgt: unused.tgt, lowercase: true}   # the paths are never read
model: {d_model: 8, heads: 2, d_ff: 16, encoder_layers: 1, decoder_layers: 1, dropout: 0.0, positional: sinusoidal}
decode: {beam: 2, max_len_ratio: 0.01, max_len_extra: 4}
)";

inline const char* learned_word_run = R"(
tokenizer: {kind: word, shared: true}
data: {train_src: unused.src, train_tgt: unused.tgt, max_len: 10}
model: {d_model: 8, heads: 2, d_ff: 16, encoder_layers: 1, decoder_layers: 1, dropout: 0.0, positional: learned,
        max_len: 12, share_embeddings: true, tie_output: true}
decode: {beam: 1, max_len_ratio: 0.01, max_len_extra: 4}
)";

// A run as load_run would give it, but built here: the config, tokenizers trained on the toy grammar (written into
// the scratch folder `name`, which is the run's folder: no checkpoints in it), and a freshly initialised model.
inline LoadedRun untrained_run(const char* yaml, const std::string& name) {
  LoadedRun run;
  run.config = parse_config(yaml, name);
  const ParallelText toy = toy_text(200);
  const std::string run_dir = (scratch_directory() / name).string();
  std::filesystem::create_directories(run_dir);
  run.tokenizers = prepare_tokenizers(run.config, run_dir, toy.src, toy.tgt);
  Generator init(run.config.train.seed);
  run.model = std::make_unique<Seq2Seq>(model_config_for(run.config, run.tokenizers), init);
  return run;
}

}  // namespace attnlab::fuzz
