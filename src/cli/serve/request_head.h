// request_head.h — a request's head as libmicrohttpd parsed it, and the signs of what it did not keep.
//
// libmicrohttpd reads the request line and the header lines into one buffer per connection and hands out pointers
// into it: the method, the target, the version, each header's name and value. It parses each line as a C string,
// overwriting every line end (CRLF or a bare LF), the colon after a name and the spaces of the request line with
// NULs. Two things it does to a head leave no trace in the names and values it hands out, only in where they stand:
//   obs-fold     a line starting with a space or a tab is appended to the previous header's *name*, copied to a
//                block of its own ("X-A: b" + " c" becomes "X-Ac: b"): a name that does not stand right before its
//                value
//   NUL          ends what it sees of a line: a header line starting with NUL is taken for the blank line that ends
//                the head, and what follows a NUL inside a line is dropped: bytes of the head that no line holds
// read_head() reads both from the pointers (request_checks.h refuses them: 400). What it cannot see is in
// docs/guide/explorer-and-serve.md ("What serve refuses before it reads a body").
#pragma once

#include <string>

#include "cli/serve/request_checks.h"

struct MHD_Connection;

namespace attnlab {

// The head of `connection`'s request, its first call of the access handler: `method` and `version` as the handler
// got them, `target` as the URI log callback got it (copied) and `target_at` where it stood — all in
// libmicrohttpd's buffer.
RequestHead read_head(MHD_Connection* connection, const char* method, const char* version, const std::string& target,
                      const char* target_at);

}  // namespace attnlab
