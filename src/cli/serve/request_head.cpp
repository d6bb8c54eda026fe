// request_head.cpp — reading the head from libmicrohttpd's buffer, obs-folds and NULs included (request_head.h).
#include "cli/serve/request_head.h"

#include <microhttpd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace attnlab {

namespace {

// Whether a header's name stands right before its value in the bytes libmicrohttpd read, as in every line sent
// whole ("Name\0 value": it overwrites the colon with a NUL). libmicrohttpd 0.9.75 joins an obs-fold (a line
// starting with a space or a tab) by appending that line to the previous header's *name*, copied to a block of its
// own: "X-A: b\r\n c" becomes the header "X-Ac: b" — a name that stands elsewhere is the only sign of it left.
bool stands_before_value(const char* key, size_t key_size, const char* value) {
  const auto name_end = reinterpret_cast<uintptr_t>(key) + key_size, value_start = reinterpret_cast<uintptr_t>(value);
  if (value == nullptr || value_start <= name_end) return false;
  for (const char* between = key + key_size; between != value; ++between) {
    if (*between != '\0' && *between != ' ' && *between != '\t') return false;
  }
  return true;
}

// Where one line of the head lies in libmicrohttpd's buffer: from its first byte kept to past its last.
struct LineKept {
  uintptr_t start, end;
};

// Whether libmicrohttpd kept every byte of the head it read. It reads each line as a C string, so a NUL ends what it
// sees of a line: a header line starting with NUL is taken for the blank line that ends the head (what follows is
// read as the body, or left unread), and what follows a NUL inside a line is dropped. Its buffer still shows it:
// the head lies from the method to method + the head's size (MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE), holding
// the request line and every name and value in the order sent, each line end (CRLF, or a bare LF) overwritten with
// NULs. So between one line kept and the next stand 1 or 2 bytes (a line end), and after the last at most twice
// its widest line end (its own and the blank line's); more, and bytes were read that no part of the head holds.
// Hidden: one NUL and a bare LF after a CRLF ("\r\n\0\n") leave the same 4 NULs as "\r\n\r\n".
bool every_byte_kept(uintptr_t head_start, uintptr_t head_end, const std::vector<LineKept>& lines) {
  uintptr_t widest = 2;  // no line end measured (a request line alone): CRLF
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].start < head_start || lines[i].end > head_end) return true;  // not in the buffer: cannot tell
    if (i == 0) continue;
    if (lines[i].start < lines[i - 1].end || lines[i].start - lines[i - 1].end > 2) return false;
    const uintptr_t line_end = lines[i].start - lines[i - 1].end;
    widest = i == 1 ? line_end : std::max(widest, line_end);
  }
  return lines.empty() || head_end - lines.back().end <= 2 * widest;
}

// Whether libmicrohttpd kept the whole request line "method SP target SP version" (every SP overwritten with a NUL,
// the spaces it skips after the method kept): a NUL in the method or the target would end it early.
bool request_line_kept(const char* method, const char* target_at, size_t target_size, const char* version) {
  const char* method_end = method + std::strlen(method);
  if (target_at == nullptr || target_at <= method_end || target_at + target_size + 1 != version) return false;
  return std::all_of(method_end + 1, target_at, [](char c) { return c == ' '; });
}

// The head as libmicrohttpd parsed it: every header line in order, with the request line's parts; `method`,
// `version` and `target_at` are libmicrohttpd's own, in its buffer (the target copied as sent before it decodes it).
}  // namespace

RequestHead read_head(MHD_Connection* connection, const char* method, const char* version, const std::string& target,
                      const char* target_at) {
  struct Read {
    RequestHead head;
    std::vector<LineKept> lines;
  } read{{method, target, version, {}, false, false}, {}};
  const auto version_at = reinterpret_cast<uintptr_t>(version);
  read.lines.push_back({version_at, version_at + std::strlen(version)});
  auto collect = [](void* into, MHD_ValueKind, const char* key, size_t key_size, const char* value, size_t value_size) {
    auto& read = *static_cast<Read*>(into);
    read.head.headers.emplace_back(std::string(key, key_size), value ? std::string(value, value_size) : "");
    const bool folded = !stands_before_value(key, key_size, value);
    read.head.folded = read.head.folded || folded;
    if (!folded)
      read.lines.push_back({reinterpret_cast<uintptr_t>(key), reinterpret_cast<uintptr_t>(value) + value_size});
    return MHD_YES;
  };
  MHD_get_connection_values_n(connection, MHD_HEADER_KIND, +collect, &read);
  const MHD_ConnectionInfo* size = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  const auto head_start = reinterpret_cast<uintptr_t>(method);
  const uintptr_t head_end = head_start + (size != nullptr ? size->header_size : 0);
  const bool in_buffer = size != nullptr && version_at > head_start && version_at < head_end;  // else "": no version
  read.head.nul_in_line = in_buffer && !read.head.folded &&
                          (!request_line_kept(method, target_at, target.size(), version) ||
                           !every_byte_kept(head_start, head_end, read.lines));
  return read.head;
}

}  // namespace attnlab
