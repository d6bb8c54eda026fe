// connection_table.h — who is connected to `attnlab serve`, from where and since when, and who makes room.
//
// A server that holds a socket for every client can be filled by clients that connect and say nothing: 385 silent
// connections once held every place of serve, and the next client waited in the kernel's queue with no refusal
// (issue 47). So every connection is counted here, from the moment it is accepted until it is closed:
//   per address       open connections by client address; past Limits::per_address a connection is marked
//                     over_limit: its request is answered 503 (crowd_refusal: answered, not reset — a classroom
//                     may share one address), and it is the first to make room
//   making room       past Limits::connections a newcomer takes the place of a connection that has sent nothing
//                     yet (one over its address's limit first, then the oldest); when every connection has sent
//                     something, the newcomer is answered 503 and closed at once, never left in the kernel's queue
//   late              the watchdog (close_late(), every half second) shuts a connection silent for
//                     silent_seconds, or whose request has not arrived whole request_seconds after it started
// Shutting a connection is shutdown(2) on its socket: libmicrohttpd's epoll thread sees it end and closes it, and
// its "closed" notification removes it here (under the same mutex, so the descriptor is still this connection's).
// A connection is known by libmicrohttpd's handle for it, kept here as an opaque pointer.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "cli/serve/http_server.h"

namespace attnlab {

class ConnectionTable {
 public:
  explicit ConnectionTable(const HttpLimits& limits) : limits_(limits) {}

  // A connection accepted on socket `fd` from `address`: counted, and room made past Limits::connections.
  void opened(const void* connection, int fd, const std::string& address);
  void line_read(const void* connection);     // it has sent its request line: no longer silent
  void request_read(const void* connection);  // its whole request has arrived: no longer late
  void closed(const void* connection);        // libmicrohttpd is closing it

  // 503 for a connection past Limits::per_address from its address; nothing for every other.
  std::optional<HttpAnswer> crowd_refusal(const void* connection);

  void close_late();  // shuts the connections silent or late past their limits (the watchdog's)

 private:
  using Clock = std::chrono::steady_clock;
  struct Connection {
    int fd = -1;
    Clock::time_point started;
    bool line_read = false;
    bool request_read = false;
    bool closing = false;     // shut down to make room or by the watchdog: libmicrohttpd closes it next
    std::string address;      // the client's
    bool over_limit = false;  // more than Limits::per_address from its address
  };

  void shut(Connection& connection);
  Connection* first_to_make_room(const void* newcomer, size_t& open);

  HttpLimits limits_;
  std::mutex mutex_;
  std::unordered_map<const void*, Connection> connections_;
  std::unordered_map<std::string, unsigned> per_address_;  // open connections by address
};

}  // namespace attnlab
