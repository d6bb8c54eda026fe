// listening_socket.h — the two socket chores of `attnlab serve` that are not HTTP: opening the socket it listens
// on, and writing a client's address as text.
#pragma once

#include <sys/socket.h>

#include <string>

namespace attnlab {

// A socket listening on host:port (a name or a numeric address) with `backlog` connections waiting; `ipv6` says
// whether it is an IPv6 one. Throws attnlab::Error naming host:port, the reason and the way on (--port, --host).
int listening_socket(const std::string& host, int port, int backlog, bool& ipv6);

// An IPv4 or IPv6 address as its numeric text ("127.0.0.1", "::1"); "?" for none or one that cannot be written.
std::string numeric_address(const sockaddr* address);

}  // namespace attnlab
