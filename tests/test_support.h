// test_support.h — small helpers the test files share: a fresh folder per test, and a file's bytes.
#pragma once

#include <filesystem>
#include <string>

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

}  // namespace attnlab::testing
