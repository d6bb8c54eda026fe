// http_server.h — the HTTP layer of `attnlab serve`: every request bounded before anything is allocated for it.
//
// Built on GNU libmicrohttpd (Debian's libmicrohttpd-dev), a server made for hostile input, rather than on
// cpp-httplib: Debian ships cpp-httplib 0.11.4 compiled, so its limits cannot be set, and with it a Range header
// of a few hundred ranges or a large answer aborted the process (std::bad_alloc inside the library), a chunked
// body was read whole before it was refused, 10,000 headers were accepted, and one blocking thread per
// connection let 50 slow clients starve everyone. Here:
//   request line + headers   at most Limits::head_bytes (libmicrohttpd's memory pool per connection; it
//                            answers 431 or 414 itself beyond it), so their count is bounded too
//   body                     at most Limits::body_bytes however it is framed (Content-Length, chunked): it is
//                            handed over in pieces and counted; past the limit the rest is dropped
//                            as it arrives and the answer is 413 (at once for a Content-Length over
//                            HttpLimits::drain_bytes)
//   Range                    ignored: the answer is always the whole one (allowed by RFC 9110, § 14.2)
//   time                     the whole request must arrive within Limits::request_seconds of the connection's
//                            start, a connection that has sent nothing is closed after Limits::silent_seconds,
//                            and one idle for Limits::idle_seconds is closed (slow clients, clients that stop
//                            reading their answer)
//   connections              at most Limits::connections at once. When full, a newcomer takes the place of the
//                            oldest connection that has sent nothing yet; when none has, it is answered 503 and
//                            closed at once — never left waiting in the kernel's queue. Past Limits::per_address
//                            from one address, a request is answered 503 (not reset: a classroom may share one
//                            address), and such connections are the first to make room. One request per
//                            connection (Connection: close)
//   answers held             at most Limits::answer_budget_bytes across every connection (answer_budget.h):
//                            reserved at admission, freed once sent or abandoned; beyond it, 503
//   work                     a request the router hands a job goes to the WorkQueue with its client (address) and
//                            cost; a full queue or a client over its share is 503 with Retry-After, never a reset
//   head                     checked before the router sees it (request_checks.h): framing as RFC 9112 asks
//                            (400/501 at once), a Host naming this server (421), an Origin of its own page or one
//                            --allow-origin names (403)
// Every answer attnlab makes is JSON ({"error": …} for a refusal) and carries X-Frame-Options: DENY, a
// Content-Security-Policy (the page's own, explorer_api.h; for the others default-src 'none') and
// Cross-Origin-Resource-Policy: same-origin. The answers libmicrohttpd 0.9.75 makes itself, before attnlab sees
// the request — a request line or a header line it cannot parse (400), a Content-Length it cannot read (400, 413),
// an unsupported HTTP version (505), a head over head_bytes (431, 414), a malformed chunk (400) — are its own
// short HTML pages: it offers no way to replace them (docs/guide/explorer-and-serve.md lists them).
// Stopping (stop()): no new connections (the listening socket is shut: a connect is refused), a request that arrives
// now is 503, waiting jobs are 503, running ones finish, and every answer made is sent whole; after
// Limits::stop_seconds whatever is still being sent is cut off. The process's own deadline is serve_command.cpp's.
// One epoll thread does all the reading and writing, so slow clients cost a socket and a small buffer each, not
// a thread. The listening socket is made here (bind, then listen with Limits::backlog), so that a port in use is
// told apart from an address that is not this machine's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/serve/work_queue.h"

namespace attnlab {

struct HttpLimits {
  size_t head_bytes = 16 * 1024;     // request line and headers
  size_t body_bytes = 64 * 1024;
  // A body over body_bytes is read and dropped, so that the client, still sending, then reads the 413; but a
  // Content-Length over drain_bytes is answered 413 at once and the connection closed (a client that keeps
  // sending may see the connection reset instead of the answer).
  size_t drain_bytes = 8 << 20;
  unsigned connections = 512;
  unsigned per_address = 64;         // connections from one address at once
  unsigned idle_seconds = 10;
  unsigned request_seconds = 10;
  unsigned silent_seconds = 5;       // a connection that has sent no byte of a request line
  int64_t answer_budget_bytes = int64_t{256} << 20;   // answers held across all connections (answer_budget.h)
  unsigned stop_seconds = 10;        // stop(): how long answers made may still take to be sent
  size_t send_buffer_bytes = 256 * 1024;   // the kernel's send buffer per connection (SO_SNDBUF; Linux doubles it)
  int backlog = 1024;                // connections the kernel holds until accepted: a classroom connecting at
                                     // once, or a burst while the epoll thread waits for a core (a connect past
                                     // it is dropped, and the client tries again only a second later)
  int retry_after_seconds = 2;       // what a 503 asks the client to wait
};

struct HttpRequest {
  std::string method, path, body;
};

struct HttpAnswer {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;   // more headers (the page's Content-Security-Policy …)
};

// What the router makes of a request: an answer at once, or a job for the work queue that makes the answer.
struct Routed {
  HttpAnswer answer;
  std::function<HttpAnswer()> job;   // empty: `answer` is the answer
  int64_t answer_bytes = 0;          // a job's: an upper bound of its answer's size (reserved before it is queued)
  int64_t cost = 1;                  // a job's: its work, counted against its client's share (work_queue.h)
};

// The JSON error answer {"error": "…"} every refusal of serve has (bytes of the message that are not UTF-8, say
// of a header it quotes, become U+FFFD).
HttpAnswer json_error(int status, const std::string& message);

struct Audience;   // who may ask (request_checks.h)

class HttpServer {
 public:
  using Router = std::function<Routed(const HttpRequest&)>;

  // Binds host:port and starts serving on its own thread, to `audience` (audience_of(host, port, …)); throws
  // attnlab::Error when it cannot listen.
  HttpServer(const std::string& host, int port, const HttpLimits& limits, Router router, WorkQueue& queue,
             const Audience& audience);
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  ~HttpServer();   // stop()

  // Stops accepting (a connect is refused), answers new requests and queued work 503, waits for running jobs and
  // for every answer made to be sent whole (at most Limits::stop_seconds), closes every connection. Idempotent.
  void stop();

  size_t answers_held() const;   // answers admitted and not yet sent whole (answer_budget.h)

  struct State;   // libmicrohttpd's daemon and the connections' bookkeeping (http_server.cpp)

 private:
  std::unique_ptr<State> state_;
};

}  // namespace attnlab
