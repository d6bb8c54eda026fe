// error.h — the one exception type attnlab throws for bad input.
//
// Errors are for people: the message names the operation or the file, what was expected and what was found.
// The command-line front end catches attnlab::Error, prints its message on one line and exits non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace attnlab {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace attnlab
