// test_files.cpp — util/files.h's atomic writes: a new file appears whole or not at all, and a destination that is
// not a file (a device such as /dev/null, a FIFO) is written into, never replaced.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "util/error.h"
#include "util/files.h"

using namespace attnlab;

namespace {

std::filesystem::path fresh_folder(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("attnlab-files-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

TEST_CASE("write_file_atomically replaces a file whole and leaves no temporary file beside it") {
  const std::filesystem::path dir = fresh_folder("regular");
  const std::string path = (dir / "notes.txt").string();
  write_file_atomically(path, "old\n");
  write_file_atomically(path, "new\n");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "new\n");
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
  std::filesystem::remove_all(dir);
}

// `attnlab … --out /dev/null` run as root renamed its temporary file over /dev/null, which became a plain file
// for every later program. A FIFO stands in for the device here: the test must not touch /dev.
TEST_CASE("write_file_atomically writes into a FIFO and leaves it a FIFO, and refuses a folder") {
  const std::filesystem::path dir = fresh_folder("fifo");
  const std::string fifo = (dir / "pipe").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // The reading end is opened first (without waiting for a writer), so the write below does not block, and a FIFO
  // replaced by a plain file would leave it with nothing to read rather than hang the test.
  const int reading = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(reading >= 0);
  write_file_atomically(fifo, "through the pipe\n");
  char buffer[64] = {};
  const ssize_t got = ::read(reading, buffer, sizeof buffer);
  ::close(reading);
  const std::string heard(buffer, static_cast<size_t>(std::max<ssize_t>(got, 0)));
  CHECK(heard == "through the pipe\n");
  struct stat after {};
  REQUIRE(::stat(fifo.c_str(), &after) == 0);
  CHECK(S_ISFIFO(after.st_mode));
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
  CHECK_THROWS_WITH_AS(write_file_atomically(dir.string(), "x"), doctest::Contains("cannot write a file over a folder"),
                       Error);
  std::filesystem::remove_all(dir);
}
