// files.cpp — atomic writes (temporary file, fsync, rename) and whole-file reads.
#include "util/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "util/error.h"

namespace attnlab {

AtomicFile::AtomicFile(const std::string& final_path)
    : final_path_(final_path), temporary_path_(final_path + ".tmp-" + std::to_string(::getpid())) {
  // A destination that is not a file — /dev/null, /dev/stdout, a FIFO — is written straight into: renaming a
  // temporary file over it would replace the device itself (for root, /dev/null became a plain file that way).
  struct stat existing {};
  if (::stat(final_path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    if (S_ISDIR(existing.st_mode)) {
      errno = EISDIR;
      fail("cannot write a file over a folder");
    }
    direct_ = true;
    temporary_path_ = final_path;
    fd_ = ::open(final_path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot open");
    return;
  }
  fd_ = ::open(temporary_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) fail("cannot create " + temporary_path_);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !direct_) ::unlink(temporary_path_.c_str());
}

void AtomicFile::write(const std::string& bytes) {
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t count = ::write(fd_, bytes.data() + written, bytes.size() - written);
    if (count < 0 && errno == EINTR) continue;  // interrupted by a signal before writing anything: retry
    if (count < 0) fail("cannot write " + temporary_path_);
    written += static_cast<size_t>(count);
  }
}

void AtomicFile::commit() {
  if (direct_) {                       // a device or a FIFO: nothing to flush to disk, nothing to rename
    const int fd = fd_;
    fd_ = -1;
    committed_ = true;
    if (::close(fd) != 0) fail("cannot close");
    return;
  }
  if (::fsync(fd_) != 0) fail("cannot flush " + temporary_path_ + " to disk");
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot close " + temporary_path_);
  // The folder's name is made before the rename: nothing may fail (allocate) once the file has replaced the old one,
  // or a caller told "not written" would find it written (tests/run/alloc_failure/).
  const std::string directory = std::filesystem::path(final_path_).parent_path().string();
  if (::rename(temporary_path_.c_str(), final_path_.c_str()) != 0) {
    fail("cannot rename " + temporary_path_ + " to " + final_path_);
  }
  committed_ = true;
  // The new name lives in the directory, so flush the directory too, or a power cut could forget the rename.
  // Best effort: some file systems cannot fsync a directory, and the file itself is already safe.
  int directory_fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory_fd >= 0) {
    ::fsync(directory_fd);
    ::close(directory_fd);
  }
}

void AtomicFile::fail(const std::string& what) const {
  throw Error(final_path_ + ": " + what + ": " + std::strerror(errno));
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  AtomicFile file(path);
  file.write(contents);
  file.commit();
}

std::string read_text_file(const std::string& path, size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO with no writer must not hang; it is refused below as not a regular file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error("cannot read '" + path + "': " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw Error("cannot read '" + path + "': " + std::strerror(errno));
  if (S_ISDIR(info.st_mode)) throw Error("'" + path + "' is a folder, where a file was expected");
  if (!S_ISREG(info.st_mode)) {
    throw Error("'" + path + "' is not a regular file (a device, a pipe or a socket); give the path of a file");
  }
  if (static_cast<size_t>(info.st_size) > max_bytes) {
    throw Error("'" + path + "' has " + std::to_string(info.st_size) + " bytes, more than the " +
                std::to_string(max_bytes) + " attnlab reads from such a file");
  }
  std::string text(static_cast<size_t>(info.st_size), '\0');
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t got = ::read(fd, text.data() + done, text.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw Error("cannot read '" + path + "': " + std::strerror(errno));
    if (got == 0) break;   // the file shrank while it was read: keep what is there
    done += static_cast<size_t>(got);
  }
  text.resize(done);
  return text;
}

bool path_exists(const std::string& path) {
  std::error_code error;
  const bool exists = std::filesystem::exists(path, error);
  if (error) throw Error("cannot look at '" + path + "': " + error.message());
  return exists;
}

}  // namespace attnlab
