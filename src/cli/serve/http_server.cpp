// http_server.cpp — libmicrohttpd driven with every limit of http_server.h.
//
// The life of one request, in the order libmicrohttpd calls us (on its one epoll thread):
//   connection started   → its clock starts (the watchdog closes it if it stays silent, or if the request has not
//                          arrived in time); past Limits::connections the oldest silent connection is closed to
//                          make room, or, when none is silent, the newcomer is answered 503 and closed
//   request line read    → the request's state is made, with the target as sent (the URI log callback)
//   access, first call   → the head is checked (request_checks.h: framing, Host, Origin) and a refusal sent at
//                          once; a Content-Length past drain_bytes is refused (413)
//   access, body pieces  → counted and kept up to the limit; past it, dropped, and refused (413) at the end
//   access, last call    → routed: answered at once, or the job's answer is reserved in the budget, the job
//                          queued and the connection suspended (the worker resumes it); a budget spent, a full
//                          queue or a client over its share is 503 + Retry-After
//   access, after resume → the job's answer is handed to libmicrohttpd (no copy); it frees it, and its place in
//                          the budget, once sent or once its client has gone
//   request completed    → the state is freed
#include "cli/serve/http_server.h"

#include <arpa/inet.h>
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

#include "cli/serve/answer_budget.h"
#include "cli/serve/connection_table.h"
#include "cli/serve/listening_socket.h"
#include "cli/serve/request_checks.h"
#include "cli/serve/request_head.h"
#include "tensor/storage.h"
#include "util/error.h"

namespace attnlab {

HttpAnswer json_error(int status, const std::string& message) {
  return {status,
          "application/json",
          nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
          {}};
}

namespace {

using Clock = std::chrono::steady_clock;

// One request between libmicrohttpd's calls: what has arrived, and the answer once a worker made it.
struct RequestState {
  HttpRequest request;
  std::string target;               // the request target as sent, before libmicrohttpd decodes it
  const char* target_at = nullptr;  // where it stands in libmicrohttpd's buffer
  bool head_read = false;           // the head has been checked (access(), first call)
  std::string cross_origin;         // an --allow-origin page it came from: named in Access-Control-Allow-Origin
  bool refused = false;             // an answer was already queued (a refusal of the head, or 413)
  bool too_large = false;           // the body went over the limit: the rest is dropped, then 413
  bool queued = false;              // its job is in the work queue or running
  int64_t reserved = -1;            // bytes reserved in the answer budget for its answer (-1: none yet)
  std::atomic<bool> answered{false};
  HttpAnswer answer;  // written by the worker before `answered`
};

void log_from_library(void*, const char* format, va_list arguments) {
  char line[512];
  std::vsnprintf(line, sizeof line, format, arguments);
  spdlog::debug("libmicrohttpd: {}", line);
}

// An answer handed to libmicrohttpd: it owns the bytes and, when it destroys the response (sent, or its client
// gone), free_answer() frees them and their place in the budget.
struct HeldAnswer {
  std::string body;
  AnswerBudget* budget;
  int64_t bytes;
  std::atomic<bool>* freed_large;  // set when a large answer is freed: memory the watchdog may give back
};

void free_answer(void* held_answer) {
  auto* held = static_cast<HeldAnswer*>(held_answer);
  held->budget->release(held->bytes);
  if (held->bytes > AnswerBudget::small_answer) held->freed_large->store(true);
  delete held;
}

// The client's address as text ("127.0.0.1", "::1"): whose share a job counts against.
std::string client_address(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  return info == nullptr ? "?" : numeric_address(info->client_addr);
}

HttpAnswer body_too_large(const HttpLimits& limits) {
  return json_error(
      413, "the request body is larger than the " + std::to_string(limits.body_bytes) + " bytes this server accepts");
}

}  // namespace

struct HttpServer::State {
  HttpLimits limits;
  Router router;
  WorkQueue& queue;
  Audience audience;
  AnswerBudget budget;
  MHD_Daemon* daemon = nullptr;
  int listen_fd = -1;
  std::atomic<bool> refusing{false};          // stopping: every new request is 503
  std::atomic<bool> memory_to_return{false};  // a job ended or a large answer was freed since the last trim

  ConnectionTable connections;  // who is connected, from where, since when (connection_table.h)
  std::mutex stop_mutex;
  std::condition_variable stop_signal;
  bool stopping = false;
  std::thread watchdog;

  State(const HttpLimits& l, Router r, WorkQueue& q, Audience a)
      : limits(l),
        router(std::move(r)),
        queue(q),
        audience(std::move(a)),
        budget(l.answer_budget_bytes),
        connections(l) {}

  MHD_Result send(MHD_Connection* connection, RequestState& state, HttpAnswer answer);
  void add_headers(MHD_Response* response, const HttpAnswer& answer, const std::string& cross_origin) const;
  MHD_Result access(MHD_Connection* connection, const char* url, const char* method, const char* version,
                    const char* data, size_t* size, void** context);
  MHD_Result check_head(MHD_Connection* connection, RequestState& state, const char* method, const char* version);
  MHD_Result route(MHD_Connection* connection, RequestState& state);
  MHD_Result queue_job(MHD_Connection* connection, RequestState& state, Routed routed);
  static void* request_line_read(void* self, const char* uri, MHD_Connection* connection);
  static void request_completed(void* self, MHD_Connection* connection, void** context, MHD_RequestTerminationCode);
  static void notified(void* self, MHD_Connection* connection, void** socket_context, MHD_ConnectionNotificationCode);
  void watch();
};

// Hands `answer` to libmicrohttpd without a copy, its bytes counted in the budget: the reservation made at
// admission becomes the answer's real size; an answer reserved for only now is refused (503) if the budget is
// spent.
MHD_Result HttpServer::State::send(MHD_Connection* connection, RequestState& state, HttpAnswer answer) {
  auto bytes = static_cast<int64_t>(answer.body.size());
  if (state.reserved >= 0) {
    budget.resize(state.reserved, bytes);
  } else if (!budget.try_reserve(bytes)) {
    answer = json_error(503, "busy: the answers being sent hold the server's memory for answers (" +
                                 std::to_string(budget.limit() >> 20) + " MiB, --answer-budget-mb); try again shortly");
    bytes = static_cast<int64_t>(answer.body.size());
    budget.try_reserve(bytes);  // a small answer: always let through
  }
  state.reserved = -1;  // the response owns the reservation now
  auto* held = new HeldAnswer{std::move(answer.body), &budget, bytes, &memory_to_return};
  MHD_Response* response =
      MHD_create_response_from_buffer_with_free_callback_cls(held->body.size(), held->body.data(), free_answer, held);
  if (response == nullptr) {
    free_answer(held);
    return MHD_NO;
  }
  add_headers(response, answer, state.cross_origin);
  const MHD_Result queued = MHD_queue_response(connection, static_cast<unsigned>(answer.status), response);
  MHD_destroy_response(response);  // libmicrohttpd keeps its own reference until the answer is sent
  return queued;
}

// The headers every answer has: one request per connection, no sniffing of its type, no page may frame it, no
// page elsewhere may load it (Cross-Origin-Resource-Policy), and a Content-Security-Policy.
void HttpServer::State::add_headers(MHD_Response* response, const HttpAnswer& answer,
                                    const std::string& cross_origin) const {
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, answer.content_type.c_str());
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(response, "X-Frame-Options", "DENY");
  MHD_add_response_header(response, "Cross-Origin-Resource-Policy", "same-origin");
  if (answer.content_type.rfind("text/html", 0) == 0) {  // a page: cross-origin isolated, so a browser gives it
    MHD_add_response_header(response, "Cross-Origin-Opener-Policy", "same-origin");     // SharedArrayBuffer, and
    MHD_add_response_header(response, "Cross-Origin-Embedder-Policy", "require-corp");  // WebAssembly threads
  }
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
}

// The first call of access(): the head is checked (request_checks.h), and a refusal, or the answer to a
// preflight, sent at once; libmicrohttpd then reads no body and closes the connection.
MHD_Result HttpServer::State::check_head(MHD_Connection* connection, RequestState& state, const char* method,
                                         const char* version) {
  state.head_read = true;
  const RequestHead head = read_head(connection, method, version, state.target, state.target_at);
  std::optional<HttpAnswer> refused = connections.crowd_refusal(connection);
  if (!refused) refused = framing_refusal(head);
  if (!refused) refused = audience_answer(head, audience);
  state.cross_origin = allowed_cross_origin(head, audience);
  if (refused) {
    state.refused = true;
    return send(connection, state, *refused);
  }
  const char* length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
  if (length != nullptr && std::strtoull(length, nullptr, 10) > limits.drain_bytes) {
    state.refused = true;
    return send(connection, state, body_too_large(limits));
  }
  return MHD_YES;
}

MHD_Result HttpServer::State::access(MHD_Connection* connection, const char* url, const char* method,
                                     const char* version, const char* data, size_t* size, void** context) {
  if (*context == nullptr) *context = new RequestState;  // (made by the URI log callback, which always runs)
  auto* state = static_cast<RequestState*>(*context);
  if (!state->head_read) {  // the headers have arrived
    state->request.method = method;
    state->request.path = url;
    return check_head(connection, *state, method, version);
  }
  if (*size > 0) {  // a piece of the body
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
  if (state->refused) return MHD_YES;  // the 413 is on its way
  if (state->too_large) {
    state->refused = true;
    return send(connection, *state, body_too_large(limits));
  }
  if (state->answered.load()) return send(connection, *state, std::move(state->answer));  // the worker's answer
  connections.request_read(connection);
  return route(connection, *state);
}

MHD_Result HttpServer::State::route(MHD_Connection* connection, RequestState& state) {
  if (refusing.load()) return send(connection, state, json_error(503, "the server is stopping"));
  Routed routed;
  try {
    routed = router(state.request);
  } catch (const std::exception& e) {
    routed.answer = json_error(500, std::string("internal error: ") + e.what());
  }
  if (!routed.job) return send(connection, state, std::move(routed.answer));
  return queue_job(connection, state, std::move(routed));
}

// A job's answer is reserved in the budget, then the job queued with its client and cost, and the connection
// suspended until a worker resumes it; each refusal is a 503 saying which limit it met.
MHD_Result HttpServer::State::queue_job(MHD_Connection* connection, RequestState& state, Routed routed) {
  if (!budget.try_reserve(routed.answer_bytes)) {
    return send(
        connection, state,
        json_error(503, "busy: the answers being computed and sent hold the " + std::to_string(budget.limit() >> 20) +
                            " MiB this server keeps for answers (--answer-budget-mb); "
                            "try again shortly"));
  }
  state.reserved = routed.answer_bytes;
  WorkQueue::Job job;
  job.client = client_address(connection);
  job.cost = routed.cost;
  // Both ends resume the connection: libmicrohttpd then calls access() again, which sends the answer.
  job.run = [this, &state, connection, work = std::move(routed.job)] {
    try {
      state.answer = work();
    } catch (const std::exception& e) {
      state.answer = json_error(500, std::string("internal error: ") + e.what());
    }
    memory_to_return.store(true);
    state.answered.store(true);
    MHD_resume_connection(connection);
  };
  job.dropped = [&state, connection] {
    state.answer = json_error(503, "the server is stopping");
    state.answered.store(true);
    MHD_resume_connection(connection);
  };
  const std::string client = job.client;
  MHD_suspend_connection(connection);  // before the job can run and resume it
  const WorkQueue::Admitted admitted = queue.try_submit(std::move(job));
  if (admitted == WorkQueue::Admitted::yes) {
    state.queued = true;
    return MHD_YES;
  }
  MHD_resume_connection(connection);
  budget.release(state.reserved);
  state.reserved = -1;
  state.answer = admitted == WorkQueue::Admitted::client_full
                     ? json_error(503, "busy: the translations you (" + client + ") asked for already come to the " +
                                           "work one client may have waiting or running (--max-client-work " +
                                           std::to_string(queue.shares().client_work) + "); wait for their answers")
                     : json_error(503, "busy: " + std::to_string(queue.workers()) + " translations are running and " +
                                           std::to_string(queue.queue_length()) + " waiting; try again shortly");
  state.answered.store(true);
  return MHD_YES;  // access() is called again once resumed, and sends the 503
}

// Every half second: late connections closed; and when no translation runs and no large answer is held, the
// memory the last ones used goes back to the system (trim_storage: the tensor pool and malloc's free pages).
void HttpServer::State::watch() {
  std::unique_lock<std::mutex> stop_lock(stop_mutex);
  while (!stop_signal.wait_for(stop_lock, std::chrono::milliseconds(500), [this] { return stopping; })) {
    connections.close_late();
    if (memory_to_return.load() && queue.running() == 0 && budget.held() < (int64_t{1} << 20)) {
      memory_to_return.store(false);
      trim_storage();
    }
  }
}

namespace {

// libmicrohttpd's callbacks, each handing on to the server's State (or to the request's).
MHD_Result on_access(void* self, MHD_Connection* connection, const char* url, const char* method, const char* version,
                     const char* data, size_t* size, void** context) {
  return static_cast<HttpServer::State*>(self)->access(connection, url, method, version, data, size, context);
}

}  // namespace

// Called once the request line is read, before libmicrohttpd decodes the target: the state keeps it as sent, and
// the connection is no longer silent.
void* HttpServer::State::request_line_read(void* self, const char* uri, MHD_Connection* connection) {
  static_cast<State*>(self)->connections.line_read(connection);
  auto* state = new RequestState;
  state->target = uri != nullptr ? uri : "";
  state->target_at = uri;
  return state;
}

// The request is over (answered, or its connection gone): its state freed, with a reservation it still held.
void HttpServer::State::request_completed(void* self, MHD_Connection*, void** context, MHD_RequestTerminationCode) {
  auto* state = static_cast<RequestState*>(*context);
  if (state != nullptr && state->reserved >= 0) static_cast<State*>(self)->budget.release(state->reserved);
  delete state;
  *context = nullptr;
}

// A connection opened (counted, with a small send buffer) or closed (no longer counted).
void HttpServer::State::notified(void* self, MHD_Connection* connection, void**, MHD_ConnectionNotificationCode code) {
  auto* server = static_cast<State*>(self);
  if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
    server->connections.closed(connection);
    return;
  }
  const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (info == nullptr) return;
  // The kernel's buffer for what is sent is kept small, so that an answer a client has not read stays in the
  // budget's count (the kernel would otherwise take up to 4 MiB of it, uncounted, per connection).
  const int send_buffer = static_cast<int>(server->limits.send_buffer_bytes);
  ::setsockopt(info->connect_fd, SOL_SOCKET, SO_SNDBUF, &send_buffer, sizeof send_buffer);
  server->connections.opened(connection, info->connect_fd, client_address(connection));
}

HttpServer::HttpServer(const std::string& host, int port, const HttpLimits& limits, Router router, WorkQueue& queue,
                       const Audience& audience)
    : state_(std::make_unique<State>(limits, std::move(router), queue, audience)) {
  bool ipv6 = false;
  state_->listen_fd = listening_socket(host, port, limits.backlog, ipv6);
  const unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                         MHD_USE_ERROR_LOG | (ipv6 ? MHD_USE_IPv6 : 0);
  // libmicrohttpd's own limit is above ours by room_to_refuse: at its limit it stops accepting, and newcomers
  // would wait in the kernel's queue; below it, connection_started() makes room or refuses each newcomer itself.
  const unsigned room_to_refuse = 64;
  state_->daemon =
      MHD_start_daemon(flags, 0, nullptr, nullptr, on_access, state_.get(), MHD_OPTION_EXTERNAL_LOGGER,
                       log_from_library, nullptr,  // first, so that every message goes through it
                       MHD_OPTION_LISTEN_SOCKET, state_->listen_fd, MHD_OPTION_CONNECTION_LIMIT,
                       limits.connections + room_to_refuse, MHD_OPTION_CONNECTION_TIMEOUT, limits.idle_seconds,
                       MHD_OPTION_CONNECTION_MEMORY_LIMIT, limits.head_bytes, MHD_OPTION_NOTIFY_COMPLETED,
                       State::request_completed, state_.get(), MHD_OPTION_URI_LOG_CALLBACK, State::request_line_read,
                       state_.get(), MHD_OPTION_NOTIFY_CONNECTION, State::notified, state_.get(), MHD_OPTION_END);
  if (state_->daemon == nullptr) {
    ::close(state_->listen_fd);
    throw Error("cannot start the HTTP server on " + host + ":" + std::to_string(port) + " (libmicrohttpd refused)");
  }
  state_->watchdog = std::thread([state = state_.get()] { state->watch(); });
}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::stop() {
  State& state = *state_;
  if (state.daemon == nullptr) return;
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(state.limits.stop_seconds);
  state.refusing.store(true);              // a request that arrives now: 503
  MHD_quiesce_daemon(state.daemon);        // no new connections: the socket leaves libmicrohttpd's poll
  ::shutdown(state.listen_fd, SHUT_RDWR);  // and a connect is refused at once, not queued (closed below)
  state.queue.stop();                      // waiting jobs answered 503, running ones finish: all resumed
  while (state.budget.answers() > 0 && Clock::now() < deadline) {  // every answer made, sent whole
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  {
    std::lock_guard<std::mutex> lock(state.stop_mutex);
    state.stopping = true;
  }
  state.stop_signal.notify_all();
  state.watchdog.join();
  MHD_stop_daemon(state.daemon);  // closes every connection left, slow ones too
  state.daemon = nullptr;
  ::close(state.listen_fd);
}

size_t HttpServer::answers_held() const {
  return state_->budget.answers();
}

}  // namespace attnlab
