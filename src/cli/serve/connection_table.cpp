// connection_table.cpp — counting connections, making room, closing the late ones (connection_table.h).
#include "cli/serve/connection_table.h"

#include <sys/socket.h>

namespace attnlab {

namespace {

// A newcomer the server has no room for: a 503 written straight to its socket (nothing has been read from it
// yet), then closed — a clear refusal, not a wait in the kernel's queue.
void refuse_at_once(int fd, int retry_after_seconds) {
  const std::string body = R"({"error": "busy: every connection is in use; try again shortly"})";
  const std::string answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\nRetry-After: " + std::to_string(retry_after_seconds) +
                             "\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\nContent-Security-Policy: "
                             "default-src 'none'; frame-ancestors 'none'\r\n\r\n" +
                             body;
  (void)::send(fd, answer.data(), answer.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
}

}  // namespace

void ConnectionTable::opened(const void* connection, int fd, const std::string& address) {
  std::lock_guard<std::mutex> lock(mutex_);
  Connection& newcomer = connections_[connection];
  newcomer = Connection{};
  newcomer.fd = fd;
  newcomer.started = Clock::now();
  newcomer.address = address;
  newcomer.over_limit = ++per_address_[address] > limits_.per_address;
  size_t open = 0;
  Connection* silent = first_to_make_room(connection, open);
  if (open <= limits_.connections) return;
  if (silent == nullptr) refuse_at_once(newcomer.fd, limits_.retry_after_seconds);
  shut(silent != nullptr ? *silent : newcomer);
}

// The connection that makes room for `newcomer`: of those that have sent nothing, one over its address's limit
// first, then the oldest; nullptr when every one has sent something. `open` counts the connections not closing.
ConnectionTable::Connection* ConnectionTable::first_to_make_room(const void* newcomer, size_t& open) {
  Connection* chosen = nullptr;
  for (auto& [other, clock] : connections_) {
    if (clock.closing) continue;
    ++open;
    const bool goes_first =
        !chosen || (clock.over_limit != chosen->over_limit ? clock.over_limit : clock.started < chosen->started);
    if (other != newcomer && !clock.line_read && goes_first) chosen = &clock;
  }
  return chosen;
}

void ConnectionTable::line_read(const void* connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto found = connections_.find(connection); found != connections_.end()) found->second.line_read = true;
}

void ConnectionTable::request_read(const void* connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto found = connections_.find(connection); found != connections_.end()) found->second.request_read = true;
}

void ConnectionTable::closed(const void* connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = connections_.find(connection);
  if (found == connections_.end()) return;
  if (--per_address_[found->second.address] == 0) per_address_.erase(found->second.address);
  connections_.erase(found);
}

std::optional<HttpAnswer> ConnectionTable::crowd_refusal(const void* connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto found = connections_.find(connection);
  if (found == connections_.end() || !found->second.over_limit) return std::nullopt;
  return json_error(503, "busy: " + std::to_string(per_address_[found->second.address]) + " connections from " +
                             found->second.address + " are open, more than the " + std::to_string(limits_.per_address) +
                             " this server takes from one address (--max-per-address); try again shortly");
}

void ConnectionTable::close_late() {
  const Clock::time_point now = Clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [connection, clock] : connections_) {
    const bool silent_too_long = !clock.line_read && now - clock.started > std::chrono::seconds(limits_.silent_seconds);
    const bool late = !clock.request_read && now - clock.started > std::chrono::seconds(limits_.request_seconds);
    if (!clock.closing && (silent_too_long || late)) shut(clock);
  }
}

void ConnectionTable::shut(Connection& connection) {
  ::shutdown(connection.fd, SHUT_RDWR);  // the epoll thread sees it end and closes it
  connection.closing = true;
}

}  // namespace attnlab
