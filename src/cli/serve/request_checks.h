// request_checks.h — what `attnlab serve` refuses before a request reaches the router, and why.
//
// Both checks read the request's head alone — its request line and header lines, as libmicrohttpd parsed them —
// so the refusal goes out at once, before any body is read, as a JSON error like every other refusal of serve.
//
// 1. Framing (RFC 9112). Where a request ends must be beyond doubt: if a proxy in front of serve and serve
//    disagreed, the rest of one request could be read as a second one (request smuggling). Refused with 400:
//      a request target holding a space or a control character                           RFC 9112 § 3.2
//      a header name that is not a token: whitespace before its colon, or a line           § 5.1, § 5.2
//        folded onto the one before (obs-fold: a line starting with a space or a tab)
//      a header value holding a control character (NUL, CR, LF …; a tab is allowed)        RFC 9110 § 5.5
//      a NUL anywhere in a header line: libmicrohttpd reads a line as a C string, so          RFC 9110 § 5.5
//        a line starting with NUL would end the head there (what follows read as the body)
//      Host given twice                                                                    § 3.2
//      Content-Length given more than once (even twice the same), or not digits            § 6.3, RFC 9110 § 8.6
//      Transfer-Encoding on HTTP/1.0, beside a Content-Length, given more than once,       § 6.1, § 6.3
//        or whose last coding is not chunked, or chunked twice
//    and with 501 a Transfer-Encoding naming another coding before chunked (serve decodes chunked only, § 6.1).
//    Requests are one to a connection (Connection: close), so even a head read differently could hide no second
//    request here; the checks are for a proxy's sake, and for a clear answer instead of a wait for the timeout.
//
// 2. Who may ask. serve is for the machine it runs on (or a classroom): a web page elsewhere must not use it
//    through a visitor's browser, as Jupyter and other local servers refuse it.
//      Host must name an address serve listens on — 127.0.0.1, localhost, [::1] or what --host names, with
//        serve's port — else 421 (400 when there is none). A page of evil.example that has its name re-pointed
//        at 127.0.0.1 (DNS rebinding) reaches serve as "Host: evil.example:8080" and is refused. With --host
//        0.0.0.0 or :: (every address of the machine) any IP address and the machine's name are accepted.
//      Origin, which a browser sends with every POST and every cross-origin fetch, must be serve's own origin
//        ("http://" + Host) or one --allow-origin names, else 403: a page of another site cannot send sentences
//        (a text/plain POST needs no preflight, so only this check stops it). An allowed other origin is answered
//        with Access-Control-Allow-Origin, and its preflight (OPTIONS with Access-Control-Request-Method) 204.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/serve/http_server.h"

namespace attnlab {

// A request's head: the request line's parts and every header line in the order sent.
struct RequestHead {
  std::string method, target, version;  // target as sent, before percent-decoding
  // Names as sent; values as libmicrohttpd keeps them (blanks after the colon dropped, blanks at the end kept: a
  // framing check must see what libmicrohttpd will act on).
  std::vector<std::pair<std::string, std::string>> headers;
  bool folded = false;       // a line was folded onto the one before (obs-fold), as libmicrohttpd shows it (read_head)
  bool nul_in_line = false;  // a line held a NUL, and libmicrohttpd dropped what followed it (read_head)

  std::vector<std::string> values(std::string_view name) const;  // every value of a header (any letter case)
};

// Who may ask: the names serve answers to, its port, and the pages besides its own that may use it.
struct Audience {
  std::vector<std::string> host_names;  // lower case: "127.0.0.1", "localhost", "[::1]", --host's
  int port = 0;
  bool any_address = false;                  // --host 0.0.0.0 or ::: every IP address is one of the machine's
  std::vector<std::string> allowed_origins;  // --allow-origin, each "scheme://host[:port]" or "null"
};

// The audience of a server on host:port; throws attnlab::Error naming an --allow-origin that is not an origin.
Audience audience_of(const std::string& host, int port, const std::vector<std::string>& allowed_origins);

// 400 or 501 for a head whose framing is in doubt (1. above); nothing when it is clear.
std::optional<HttpAnswer> framing_refusal(const RequestHead& head);

// 400, 421 or 403 for a request from elsewhere (2. above), 204 for an allowed origin's preflight; else nothing.
std::optional<HttpAnswer> audience_answer(const RequestHead& head, const Audience& audience);

// The Origin an answer names in Access-Control-Allow-Origin: an allowed other origin the request came from, or "".
std::string allowed_cross_origin(const RequestHead& head, const Audience& audience);

}  // namespace attnlab
