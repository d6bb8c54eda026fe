// test_support.h — small helpers the test files share: a fresh folder per test, a file's bytes, a small model.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "model/config.h"
#include "tensor/random.h"
#include "util/files.h"

namespace attnlab::testing {

// An empty folder for one test's files, inside the build tree: <build>/<suite>/<test_name>.
inline std::filesystem::path fresh_directory(const std::string& suite, const std::string& test_name) {
  std::filesystem::path directory = std::filesystem::path(ATTNLAB_BINARY_DIR) / suite / test_name;
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  return directory;
}

// Every byte of a file (throws attnlab::Error naming it when it cannot be read).
inline std::string read_bytes(const std::filesystem::path& path) { return read_text_file(path.string()); }

// A small model for a test: `vocab` words on both sides, `layers` layers on each side, no dropout (so that two
// runs of a forward pass give the same numbers); everything else as ModelConfig's defaults.
inline ModelConfig small_model_config(int64_t vocab, int64_t d_model, int64_t heads, int64_t d_ff, int64_t layers) {
  ModelConfig config;
  config.src_vocab = config.tgt_vocab = vocab;
  config.d_model = d_model;
  config.heads = heads;
  config.d_ff = d_ff;
  config.encoder_layers = config.decoder_layers = layers;
  config.dropout = 0;
  return config;
}

// A split of the copy task, small enough to train on in well under a second: DIR/SPLIT.src and DIR/SPLIT.tgt, `pairs`
// lines of 2–6 symbols from a…h, each target line the same as its source; drawn from `gen`.
inline void write_copy_split(const std::string& dir, const std::string& split, int pairs, Generator& gen) {
  std::ofstream src(dir + "/" + split + ".src"), tgt(dir + "/" + split + ".tgt");
  for (int i = 0; i < pairs; ++i) {
    std::string line;
    const int64_t length = gen.integer(2, 7);
    for (int64_t k = 0; k < length; ++k) line += (k ? " " : "") + std::string(1, char('a' + gen.integer(0, 8)));
    src << line << "\n";
    tgt << line << "\n";
  }
}

}  // namespace attnlab::testing
