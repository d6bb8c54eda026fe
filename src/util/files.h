// files.h — writing a text file so that a crash never leaves half of it behind.
//
// The text goes to "<path>.tmp-<pid>", is flushed to disk (fsync), and only then renamed over `path`: a rename
// within one directory is atomic, so a reader sees either the old file or the whole new one.
#pragma once

#include <string>


namespace attnlab {

void write_file_atomically(const std::string& path, const std::string& contents);
std::string read_text_file(const std::string& path);   // throws attnlab::Error naming the path

}  // namespace attnlab
