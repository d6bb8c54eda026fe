// listening_socket.cpp — the socket `attnlab serve` listens on, and clients' addresses as text (listening_socket.h).
#include "cli/serve/listening_socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "util/error.h"

namespace attnlab {

// getaddrinfo resolves host (AI_PASSIVE: for listening) and its first address is bound. SO_REUSEADDR (a restarted
// server may bind while old connections linger in TIME_WAIT) but not SO_REUSEPORT, which would let a second
// server share the port and split the requests.
int listening_socket(const std::string& host, int port, int backlog, bool& ipv6) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string where = host + ":" + std::to_string(port);
  const std::string advice =
      " (is the port in use, or the address not this machine's?): choose another with "
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

std::string numeric_address(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (address == nullptr) return text;
  const socklen_t size = address->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  if (getnameinfo(address, size, text, sizeof text, nullptr, 0, NI_NUMERICHOST) != 0) return "?";
  return text;
}

}  // namespace attnlab
