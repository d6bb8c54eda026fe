// fuzz_support.h — what every fuzz target shares: the contract it checks, a quiet library, scratch files.
//
// The contract (docs/guide/reliability.md): whatever bytes come in, attnlab either accepts them or throws one
// attnlab::Error whose message is a short sentence for a person. So a target calls the reader inside
// refused_cleanly(), which catches attnlab::Error only and checks its message. Any other exception escapes,
// and libFuzzer reports it as a crash ("deadly signal" after std::terminate): that is the `attnlab: internal
// error` a user would have seen. Out-of-bounds reads, leaks, undefined behaviour and Eigen assertions are
// caught by ASan, UBSan and the assertions the fuzz preset keeps on.
#pragma once

#include <omp.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "data/corpus.h"
#include "util/error.h"

namespace attnlab::fuzz {

// A message that echoes a large part of the input back buries the reason (util/quote.h cuts quoted values to
// 40 bytes); 1000 bytes is room for a path and the five differences a checkpoint or optimizer message lists.
inline constexpr size_t message_most = 1000;

// Stops the fuzzer, printing why, when a promise of the contract does not hold.
[[noreturn]] inline void broken(const std::string& what) {
  std::fprintf(stderr, "fuzz contract broken: %s\n", what.c_str());
  std::abort();
}

inline void check(bool holds, const std::string& what) {
  if (!holds) broken(what);
}

// Runs `read`; returns true when it accepted the input, false when it refused it with a good attnlab::Error.
template <typename F>
bool refused_cleanly(const F& read) {
  try {
    read();
    return true;
  } catch (const Error& error) {
    const std::string_view message = error.what();
    check(!message.empty(), "an attnlab::Error with an empty message");
    check(message.size() <= message_most,
          "an attnlab::Error of " + std::to_string(message.size()) + " bytes: " + std::string(message.substr(0, 300)));
    return false;
  }
}

// No log lines (a warning per input would flood the fuzzer's output) and one thread (the fuzzer runs one
// input at a time; OpenMP's pool would only add noise): set before libFuzzer's main starts, in every target.
inline void quiet() {
  spdlog::set_level(spdlog::level::off);
  omp_set_num_threads(1);
}
inline const bool quiet_from_the_start = (quiet(), true);

// A folder of this process's own for the files a reader wants on disk, in $TMPDIR. libFuzzer ends without running
// exit handlers, so the scripts that run the targets (run_target.sh, tools/fuzz.sh) point TMPDIR at a folder of
// their own — in memory, /dev/shm, where there is one: a target writes a file per input and attnlab's writers
// fsync — and remove it afterwards.
inline const std::filesystem::path& scratch_directory() {
  static const std::filesystem::path directory = [] {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("attnlab-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    return path;
  }();
  return directory;
}

// Writes `bytes` to scratch_directory()/name and returns the path.
inline std::string scratch_file(const std::string& name, std::string_view bytes) {
  const std::string path = (scratch_directory() / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  check(static_cast<bool>(out), "cannot write the scratch file " + path);
  return path;
}

// Reads every number of `tensor` into a volatile sum, so that ASan sees a storage shorter than its shape says.
template <typename T>
void read_every_number(const T& tensor) {
  volatile double sum = 0;
  for (auto value : tensor.values()) sum = sum + static_cast<double>(value);
}

// The first `pairs` sentence pairs of the toy English–French corpus shipped in data/toy-en-fr/: text to train the
// targets' tokenizers on.
inline ParallelText toy_text(int64_t pairs) {
  const std::string prefix = std::string(ATTNLAB_SOURCE_DIR) + "/data/toy-en-fr/train.";
  ParallelText text = read_parallel(prefix + "en", prefix + "fr");
  text.src.resize(static_cast<size_t>(pairs));
  text.tgt.resize(static_cast<size_t>(pairs));
  return text;
}

inline std::string bytes_of(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

}  // namespace attnlab::fuzz
