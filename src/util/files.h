// files.h — writing a file so that a crash never leaves half of it behind.
//
// The bytes go to "<path>.tmp-<pid>", which is flushed to disk (fsync) and only then renamed over `path`: a
// rename within one directory is atomic, so a reader sees either the old file or the whole new one. The
// directory is flushed too, so that a power cut cannot forget the rename. An error (or an exception) before
// commit() deletes the temporary file: a failed write leaves no debris. Checkpoints (tensor/safetensors.cpp),
// configs, vocabularies, pages and reports are all written this way.
#pragma once

#include <cstddef>
#include <string>

namespace attnlab {

// A file written in pieces (a checkpoint, one tensor at a time) and then committed:
//   AtomicFile file(path);  file.write(bytes); …;  file.commit();
// Errors are attnlab::Error "<path>: cannot <what> <temporary>: <reason>".
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& final_path);   // creates the temporary file
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();                                         // not committed: closes and deletes the temporary file

  void write(const std::string& bytes);
  void commit();   // fsync, close, rename over the destination, fsync the directory

 private:
  [[noreturn]] void fail(const std::string& what) const;

  std::string final_path_;
  std::string temporary_path_;
  int fd_ = -1;
  bool committed_ = false;
  bool direct_ = false;   // the destination is a device or a FIFO (/dev/null): written straight into, no rename
};

// The whole file at once.
void write_file_atomically(const std::string& path, const std::string& contents);

// Reading an input (a config, a tokenizer index, a vocabulary) refuses, with one attnlab::Error naming the path,
// anything that is not a regular file of at most `max_bytes`: a folder, a device such as /dev/zero (which would
// be read until memory runs out), a FIFO, a symlink loop, a file too large. Checked on the opened file (fstat),
// so the file refused is the file read.
constexpr size_t default_max_text_file_bytes = size_t{256} << 20;   // 256 MiB: far above any vocabulary
std::string read_text_file(const std::string& path, size_t max_bytes = default_max_text_file_bytes);

// Whether `path` names something (following symlinks). Where the answer cannot be known — a symlink loop, a
// folder without permission, a name too long — throws attnlab::Error naming the path and the reason, instead
// of answering "no" or letting std::filesystem's exception escape as an internal error.
bool path_exists(const std::string& path);

}  // namespace attnlab
