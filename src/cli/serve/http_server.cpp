// http_server.cpp — libmicrohttpd driven with every limit of http_server.h.
//
// The life of one request, in the order libmicrohttpd calls us (on its one epoll thread):
//   connection started   → its clock starts (the watchdog closes it if the request has not arrived in time)
//   request line read    → the request's state is made, with the target as sent (the URI log callback)
//   access, first call   → the head is checked (request_checks.h: framing, Host, Origin) and a refusal sent at
//                          once; a Content-Length past drain_bytes is refused (413)
//   access, body pieces  → counted and kept up to the limit; past it, dropped, and refused (413) at the end
//   access, last call    → routed: answered at once, or the job is queued and the connection suspended (the
//                          worker resumes it); a full queue is 503 + Retry-After
//   access, after resume → the job's answer is queued
//   request completed    → the state is freed
#include "cli/serve/http_server.h"

#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <unordered_map>

#include "cli/serve/request_checks.h"
#include "util/error.h"

namespace attnlab {

HttpAnswer json_error(int status, const std::string& message) {
  return {status, "application/json",
          nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), {}};
}

namespace {

using Clock = std::chrono::steady_clock;

// One request between libmicrohttpd's calls: what has arrived, and the answer once a worker made it.
struct RequestState {
  HttpRequest request;
  std::string target;             // the request target as sent, before libmicrohttpd decodes it
  bool head_read = false;         // the head has been checked (access(), first call)
  std::string cross_origin;       // an --allow-origin page it came from: named in Access-Control-Allow-Origin
  bool refused = false;           // an answer was already queued (a refusal of the head, or 413)
  bool too_large = false;         // the body went over the limit: the rest is dropped, then 413
  bool queued = false;            // its job is in the work queue or running
  std::atomic<bool> answered{false};
  HttpAnswer answer;              // written by the worker before `answered`
};

// Listens on host:port with `backlog`; the error names what went wrong. SO_REUSEADDR (a restarted server may
// bind while old connections linger in TIME_WAIT) but not SO_REUSEPORT, which would let a second server share
// the port and split the requests.
int listening_socket(const std::string& host, int port, int backlog, bool& ipv6) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string where = host + ":" + std::to_string(port);
  const std::string advice = " (is the port in use, or the address not this machine's?): choose another with "
                             "--port or --host";
  if (const int failed = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); failed != 0) {
    throw Error("cannot listen on " + where + ": " + gai_strerror(failed) + advice);
  }
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> addresses(found, freeaddrinfo);
  const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw Error("cannot listen on " + where + ": " + std::strerror(errno) + advice);
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (::bind(fd, found->ai_addr, found->ai_addrlen) != 0 || ::listen(fd, backlog) != 0) {
    const int reason = errno;
    ::close(fd);
    throw Error("cannot listen on " + where + ": " + std::strerror(reason) + advice);
  }
  ipv6 = found->ai_family == AF_INET6;
  return fd;
}

void log_from_library(void*, const char* format, va_list arguments) {
  char line[512];
  std::vsnprintf(line, sizeof line, format, arguments);
  spdlog::debug("libmicrohttpd: {}", line);
}

HttpAnswer body_too_large(const HttpLimits& limits) {
  return json_error(413, "the request body is larger than the " + std::to_string(limits.body_bytes) +
                             " bytes this server accepts");
}

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

// The head as libmicrohttpd parsed it: every header line in order, with the request line's parts.
RequestHead read_head(MHD_Connection* connection, const char* method, const char* version, const std::string& target) {
  RequestHead head{method, target, version, {}, false};
  auto collect = [](void* into, MHD_ValueKind, const char* key, size_t key_size, const char* value, size_t value_size) {
    auto& read = *static_cast<RequestHead*>(into);
    read.headers.emplace_back(std::string(key, key_size), value ? std::string(value, value_size) : "");
    read.folded = read.folded || !stands_before_value(key, key_size, value);
    return MHD_YES;
  };
  MHD_get_connection_values_n(connection, MHD_HEADER_KIND, +collect, &head);
  return head;
}

}  // namespace

struct HttpServer::State {
  HttpLimits limits;
  Router router;
  WorkQueue& queue;
  Audience audience;
  MHD_Daemon* daemon = nullptr;
  int listen_fd = -1;

  // The watchdog's view of the connections: when each started and whether its request has arrived whole.
  struct Connection {
    int fd;
    Clock::time_point started;
    bool request_read = false;
  };
  std::mutex connections_mutex;
  std::unordered_map<MHD_Connection*, Connection> connections;
  std::mutex stop_mutex;
  std::condition_variable stop_signal;
  bool stopping = false;
  std::thread watchdog;

  State(const HttpLimits& l, Router r, WorkQueue& q, Audience a)
      : limits(l), router(std::move(r)), queue(q), audience(std::move(a)) {}

  MHD_Result send(MHD_Connection* connection, const HttpAnswer& answer, const std::string& cross_origin = "") const;
  MHD_Result access(MHD_Connection* connection, const char* url, const char* method, const char* version,
                    const char* data, size_t* size, void** context);
  MHD_Result check_head(MHD_Connection* connection, RequestState& state, const char* version);
  MHD_Result route(MHD_Connection* connection, RequestState& state);
  void watch();
};

// The answer with the headers every answer has: one request per connection, no sniffing of its type, no page
// may frame it, no page elsewhere may load it (Cross-Origin-Resource-Policy), and a Content-Security-Policy.
MHD_Result HttpServer::State::send(MHD_Connection* connection, const HttpAnswer& answer,
                                   const std::string& cross_origin) const {
  MHD_Response* response = MHD_create_response_from_buffer(answer.body.size(), const_cast<char*>(answer.body.data()),
                                                           MHD_RESPMEM_MUST_COPY);
  if (response == nullptr) return MHD_NO;
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, answer.content_type.c_str());
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(response, "X-Frame-Options", "DENY");
  MHD_add_response_header(response, "Cross-Origin-Resource-Policy", "same-origin");
  bool has_policy = false;
  for (const auto& [name, value] : answer.headers) {
    MHD_add_response_header(response, name.c_str(), value.c_str());
    has_policy = has_policy || name == "Content-Security-Policy";
  }
  if (!has_policy) {
    MHD_add_response_header(response, "Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
  }
  if (!cross_origin.empty()) {
    MHD_add_response_header(response, "Access-Control-Allow-Origin", cross_origin.c_str());
    MHD_add_response_header(response, "Vary", "Origin");
  }
  if (answer.status == 503) {
    MHD_add_response_header(response, MHD_HTTP_HEADER_RETRY_AFTER, std::to_string(limits.retry_after_seconds).c_str());
  }
  const MHD_Result queued = MHD_queue_response(connection, static_cast<unsigned>(answer.status), response);
  MHD_destroy_response(response);
  return queued;
}

// The first call of access(): the head is checked (request_checks.h), and a refusal, or the answer to a
// preflight, sent at once; libmicrohttpd then reads no body and closes the connection.
MHD_Result HttpServer::State::check_head(MHD_Connection* connection, RequestState& state, const char* version) {
  state.head_read = true;
  const RequestHead head = read_head(connection, state.request.method.c_str(), version, state.target);
  std::optional<HttpAnswer> refused = framing_refusal(head);
  if (!refused) refused = audience_answer(head, audience);
  state.cross_origin = allowed_cross_origin(head, audience);
  if (refused) {
    state.refused = true;
    return send(connection, *refused, state.cross_origin);
  }
  const char* length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
  if (length != nullptr && std::strtoull(length, nullptr, 10) > limits.drain_bytes) {
    state.refused = true;
    return send(connection, body_too_large(limits), state.cross_origin);
  }
  return MHD_YES;
}

MHD_Result HttpServer::State::access(MHD_Connection* connection, const char* url, const char* method,
                                     const char* version, const char* data, size_t* size, void** context) {
  if (*context == nullptr) *context = new RequestState;    // (made by the URI log callback, which always runs)
  auto* state = static_cast<RequestState*>(*context);
  if (!state->head_read) {                                  // the headers have arrived
    state->request.method = method;
    state->request.path = url;
    return check_head(connection, *state, version);
  }
  if (*size > 0) {                                          // a piece of the body
    // Past the limit the rest is read and dropped (libmicrohttpd 0.9.75 cannot answer in the middle of a
    // chunked upload), so memory stays bounded; the request deadline bounds the time; 413 at the end.
    if (!state->too_large && state->request.body.size() + *size > limits.body_bytes) {
      state->too_large = true;
      std::string().swap(state->request.body);
    }
    if (!state->too_large) state->request.body.append(data, *size);
    *size = 0;
    return MHD_YES;
  }
  if (state->refused) return MHD_YES;                       // the 413 is on its way
  if (state->too_large) {
    state->refused = true;
    return send(connection, body_too_large(limits), state->cross_origin);
  }
  if (state->answered.load()) return send(connection, state->answer, state->cross_origin);   // the worker's answer
  {
    std::lock_guard<std::mutex> lock(connections_mutex);
    if (auto found = connections.find(connection); found != connections.end()) found->second.request_read = true;
  }
  return route(connection, *state);
}

MHD_Result HttpServer::State::route(MHD_Connection* connection, RequestState& state) {
  Routed routed;
  try {
    routed = router(state.request);
  } catch (const std::exception& e) {
    routed.answer = json_error(500, std::string("internal error: ") + e.what());
  }
  if (!routed.job) return send(connection, routed.answer, state.cross_origin);
  WorkQueue::Job job;
  // Both ends resume the connection: libmicrohttpd then calls access() again, which sends the answer.
  job.run = [&state, connection, work = std::move(routed.job)] {
    try {
      state.answer = work();
    } catch (const std::exception& e) {
      state.answer = json_error(500, std::string("internal error: ") + e.what());
    }
    state.answered.store(true);
    MHD_resume_connection(connection);
  };
  job.dropped = [&state, connection] {
    state.answer = json_error(503, "the server is stopping");
    state.answered.store(true);
    MHD_resume_connection(connection);
  };
  MHD_suspend_connection(connection);   // before the job can run and resume it
  if (!queue.try_submit(std::move(job))) {
    MHD_resume_connection(connection);
    state.answer = json_error(503, "busy: " + std::to_string(queue.workers()) + " translations are running and " +
                                       std::to_string(queue.queue_length()) + " waiting; try again shortly");
    state.answered.store(true);
    return MHD_YES;                      // access() is called again once resumed, and sends the 503
  }
  state.queued = true;
  return MHD_YES;
}

// Every half second: a connection whose request has not arrived whole within request_seconds of its start is
// shut down (the epoll thread then sees it end and closes it). Under connections_mutex, which the "closed"
// notification also takes before libmicrohttpd closes the socket, so the descriptor is still this connection's.
void HttpServer::State::watch() {
  std::unique_lock<std::mutex> stop_lock(stop_mutex);
  while (!stop_signal.wait_for(stop_lock, std::chrono::milliseconds(500), [this] { return stopping; })) {
    const Clock::time_point now = Clock::now();
    std::lock_guard<std::mutex> lock(connections_mutex);
    for (auto& [connection, clock] : connections) {
      if (!clock.request_read && now - clock.started > std::chrono::seconds(limits.request_seconds)) {
        ::shutdown(clock.fd, SHUT_RDWR);
        clock.request_read = true;   // once is enough
      }
    }
  }
}

HttpServer::HttpServer(const std::string& host, int port, const HttpLimits& limits, Router router, WorkQueue& queue,
                       const Audience& audience)
    : state_(std::make_unique<State>(limits, std::move(router), queue, audience)) {
  bool ipv6 = false;
  state_->listen_fd = listening_socket(host, port, limits.backlog, ipv6);
  auto access = [](void* self, MHD_Connection* connection, const char* url, const char* method, const char* version,
                   const char* data, size_t* size, void** context) {
    return static_cast<State*>(self)->access(connection, url, method, version, data, size, context);
  };
  // Called once the request line is read, before libmicrohttpd decodes the target: the state keeps it as sent.
  auto request_line_read = [](void*, const char* uri, MHD_Connection*) -> void* {
    auto* state = new RequestState;
    state->target = uri != nullptr ? uri : "";
    return state;
  };
  auto completed = [](void*, MHD_Connection*, void** context, MHD_RequestTerminationCode) {
    delete static_cast<RequestState*>(*context);
    *context = nullptr;
  };
  auto notified = [](void* self, MHD_Connection* connection, void**, MHD_ConnectionNotificationCode code) {
    auto* state = static_cast<State*>(self);
    std::lock_guard<std::mutex> lock(state->connections_mutex);
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
      state->connections.erase(connection);
      return;
    }
    const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (info != nullptr) state->connections[connection] = {info->connect_fd, Clock::now(), false};
  };
  const unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                         MHD_USE_ERROR_LOG | (ipv6 ? MHD_USE_IPv6 : 0);
  state_->daemon = MHD_start_daemon(
      flags, 0, nullptr, nullptr, +access, state_.get(),
      MHD_OPTION_EXTERNAL_LOGGER, log_from_library, nullptr,   // first, so that every message goes through it
      MHD_OPTION_LISTEN_SOCKET, state_->listen_fd,
      MHD_OPTION_CONNECTION_LIMIT, limits.connections,
      MHD_OPTION_CONNECTION_TIMEOUT, limits.idle_seconds,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.head_bytes,
      MHD_OPTION_NOTIFY_COMPLETED, +completed, nullptr,
      MHD_OPTION_URI_LOG_CALLBACK, +request_line_read, nullptr,
      MHD_OPTION_NOTIFY_CONNECTION, +notified, state_.get(),
      MHD_OPTION_END);
  if (state_->daemon == nullptr) {
    ::close(state_->listen_fd);
    throw Error("cannot start the HTTP server on " + host + ":" + std::to_string(port) + " (libmicrohttpd refused)");
  }
  state_->watchdog = std::thread([state = state_.get()] { state->watch(); });
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::stop() {
  if (state_->daemon == nullptr) return;
  MHD_quiesce_daemon(state_->daemon);   // no new connections
  state_->queue.stop();                 // waiting jobs answered 503, running ones finish: every connection resumed
  {
    std::lock_guard<std::mutex> lock(state_->stop_mutex);
    state_->stopping = true;
  }
  state_->stop_signal.notify_all();
  state_->watchdog.join();
  MHD_stop_daemon(state_->daemon);      // closes every connection, slow ones too
  state_->daemon = nullptr;
  ::close(state_->listen_fd);
}

}  // namespace attnlab
