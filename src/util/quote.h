// quote.h — showing a bad value in a message: the value itself when it is short, its first few characters when
// it is not.
//
// An error quotes what it refused so the user can find it ("the metadata \"step\" is \"12x\", not a whole
// number"). But the value may be a whole line of a 10 MB file, or a file of random bytes: echoing it back would
// bury the message. So a value longer than `most` bytes is cut, at a character boundary (never inside a UTF-8
// sequence), and quote() says how long it really was:
//     quote("12x")               →  "12x"
//     quote(ten_megabytes)       →  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…" (10485760 bytes)
//     shorten(ten_megabytes)     →  aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab {

constexpr size_t quote_most = 40;  // bytes of a value a message shows

// The text itself, or its first `most` bytes (fewer, to end on a whole character) and "…".
std::string shorten(std::string_view text, size_t most = quote_most);
// shorten(text) between `mark`s, followed by " (N bytes)" when it was cut.
std::string quote(std::string_view text, char mark = '"', size_t most = quote_most);

// A library's own error text (a JSON parser's "[json.exception.parse_error.101] parse error at line 1, column 7:
// …; last read: '…'") for a message of ours: without its "[…] " tag, and cut like shorten() to `most` bytes,
// since the library quotes the input it stopped at whole — found by fuzzing: a 5,000-byte token came back whole.
std::string library_reason(std::string_view what, size_t most = 160);

}  // namespace attnlab
