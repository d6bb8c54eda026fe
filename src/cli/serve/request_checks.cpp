// request_checks.cpp — the framing and audience checks of a request's head (request_checks.h), each rule with
// the section of the RFC it comes from.
#include "cli/serve/request_checks.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "util/error.h"
#include "util/quote.h"

namespace attnlab {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  return std::string(text.substr(first, text.find_last_not_of(" \t") - first + 1));
}

// RFC 9110 § 5.6.2: token = 1*tchar, tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" /
// "_" / "`" / "|" / "~" / DIGIT / ALPHA. A header name is a token: no space, no colon, no control character.
bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

// A control character (0x00–0x1F, 0x7F): never in a header value, except the tab (RFC 9110 § 5.5).
bool is_control(unsigned char c) {
  return c < 0x20 || c == 0x7F;
}

HttpAnswer bad_request(const std::string& message) {
  return json_error(400, message);
}

// Content-Length: once at most, and digits (RFC 9112 § 6.3, RFC 9110 § 8.6).
std::optional<HttpAnswer> length_refusal(const std::vector<std::string>& lengths) {
  if (lengths.size() > 1) {
    return bad_request("Content-Length is given " + std::to_string(lengths.size()) + " times (" + quote(lengths[0]) +
                       ", " + quote(lengths[1]) +
                       "): a proxy and this server could take different lengths; send it once (RFC 9110, 8.6)");
  }
  const bool digits =
      !lengths.empty() && !lengths[0].empty() &&
      std::all_of(lengths[0].begin(), lengths[0].end(), [](unsigned char c) { return std::isdigit(c); });
  if (!lengths.empty() && !digits) {
    return bad_request("Content-Length " + quote(lengths[0]) + " is not a number of bytes (RFC 9112, 6.3)");
  }
  return std::nullopt;
}

// Transfer-Encoding: only on HTTP/1.1, never beside Content-Length, one line, chunked last and once; any other
// coding is one serve cannot decode (501) (RFC 9112 § 6.1, § 6.3).
std::optional<HttpAnswer> coding_refusal(const RequestHead& head, const std::vector<std::string>& codings_sent) {
  if (head.version == "HTTP/1.0") {
    return bad_request(
        "Transfer-Encoding on an HTTP/1.0 request: HTTP/1.0 has no transfer codings, so its "
        "framing is faulty (RFC 9112, 6.1)");
  }
  if (!head.values("Content-Length").empty()) {
    return bad_request("both Transfer-Encoding and Content-Length: send one of them (RFC 9112, 6.1)");
  }
  std::vector<std::string> codings;  // every line's comma-separated list, in order
  for (const std::string& line : codings_sent) {
    for (size_t start = 0; start <= line.size();) {
      const size_t comma = std::min(line.find(',', start), line.size());
      const std::string coding = lower(trimmed(line.substr(start, comma - start)));
      if (!coding.empty()) codings.push_back(coding);
      start = comma + 1;
    }
  }
  const std::string sent =
      quote(codings_sent.size() == 1 ? codings_sent[0] : "(" + std::to_string(codings_sent.size()) + " lines)");
  if (codings.empty() || codings.back() != "chunked" || std::count(codings.begin(), codings.end(), "chunked") > 1) {
    return bad_request("Transfer-Encoding " + sent +
                       " does not end in chunked once, so the body's end cannot be found (RFC 9112, 6.3)");
  }
  for (const std::string& coding : codings) {
    if (coding != "chunked") {
      return json_error(501, "the transfer coding " + quote(coding) +
                                 " is not one this server decodes: it takes chunked alone (RFC 9112, 6.1)");
    }
  }
  if (codings_sent.size() != 1 || lower(codings_sent[0]) != "chunked") {
    return bad_request("Transfer-Encoding " + sent + ": write it as one line, exactly \"chunked\"");
  }
  return std::nullopt;
}

// Host's name (lower case, an IPv6 address in brackets) and port (80 when it has none); false when malformed.
bool split_host(const std::string& host, std::string& name, int& port) {
  const size_t colon = host.rfind(':');
  const bool has_port = colon != std::string::npos && host.find(']', colon) == std::string::npos;
  name = lower(has_port ? host.substr(0, colon) : host);
  const std::string digits = has_port ? host.substr(colon + 1) : "80";
  if (name.empty() || digits.empty() || digits.size() > 5 ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return false;
  }
  port = std::stoi(digits);
  return true;
}

bool is_ip_address(const std::string& name) {
  std::array<unsigned char, 16> address{};
  if (name.size() > 2 && name.front() == '[' && name.back() == ']') {
    return inet_pton(AF_INET6, name.substr(1, name.size() - 2).c_str(), address.data()) == 1;
  }
  return inet_pton(AF_INET, name.c_str(), address.data()) == 1;
}

// An origin as a browser writes it: "http://host[:port]" or "https://…", no path; or "null".
bool is_origin(const std::string& origin) {
  if (origin == "null") return true;
  const size_t scheme_end = origin.find("://");
  if (scheme_end == std::string::npos) return false;
  // A scheme is case-insensitive (RFC 3986, 3.1): HTTPS://x is the origin https://x.
  const std::string scheme = lower(origin.substr(0, scheme_end)), authority = origin.substr(scheme_end + 3);
  std::string name;
  int port = 0;
  return (scheme == "http" || scheme == "https") && authority.find_first_of("/?#@ ") == std::string::npos &&
         split_host(authority, name, port);
}

std::optional<HttpAnswer> host_refusal(const RequestHead& head, const Audience& audience) {
  const std::vector<std::string> hosts = head.values("Host");
  const std::string served = audience.host_names[0] + ":" + std::to_string(audience.port);
  if (hosts.empty()) return bad_request("no Host header: say which server you ask, Host: " + served);
  std::string name;
  int port = 0;
  if (!split_host(trimmed(hosts[0]), name, port)) {
    return bad_request("the Host " + quote(hosts[0]) + " is not host[:port]");
  }
  const bool known =
      std::find(audience.host_names.begin(), audience.host_names.end(), name) != audience.host_names.end();
  if (port != audience.port || !(known || (audience.any_address && is_ip_address(name)))) {
    return json_error(421, "this server answers to " + served + ", not to the Host " + quote(hosts[0]) +
                               ": a page reached under another name (DNS rebinding) may not use it; to serve under "
                               "a name, start serve with --host NAME");
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> RequestHead::values(std::string_view name) const {
  std::vector<std::string> found;
  for (const auto& [header, value] : headers) {
    if (lower(header) == lower(name)) found.push_back(value);
  }
  return found;
}

Audience audience_of(const std::string& host, int port, const std::vector<std::string>& allowed_origins) {
  Audience audience;
  audience.host_names = {"127.0.0.1", "localhost", "[::1]"};
  audience.port = port;
  audience.any_address = host == "0.0.0.0" || host == "::";
  const std::string named = lower(host.find(':') != std::string::npos ? "[" + host + "]" : host);
  if (!audience.any_address && named != "127.0.0.1" && named != "localhost" && named != "[::1]") {
    audience.host_names.insert(audience.host_names.begin(), named);  // first: the name the messages give
  }
  if (std::array<char, 256> machine{}; audience.any_address && gethostname(machine.data(), machine.size() - 1) == 0) {
    audience.host_names.push_back(lower(machine.data()));
  }
  for (const std::string& origin : allowed_origins) {
    if (!is_origin(origin)) {
      throw Error("--allow-origin " + quote(origin) +
                  " is not an origin: write it as a browser sends it in the Origin header, scheme://host[:port] "
                  "with no path (say http://localhost:3000), or null");
    }
    audience.allowed_origins.push_back(lower(origin));
  }
  return audience;
}

std::optional<HttpAnswer> framing_refusal(const RequestHead& head) {
  if (head.target.empty() ||
      std::any_of(head.target.begin(), head.target.end(), [](unsigned char c) { return c <= ' ' || c >= 0x7F; })) {
    return bad_request("the request target " + quote(head.target) +
                       " holds a space, a control character or a byte beyond ASCII: percent-encode it (RFC 9112, "
                       "3.2)");
  }
  if (head.nul_in_line) {
    return bad_request(
        "a header line holds a NUL byte: no field may (RFC 9110, 5.5), and a line starting with one "
        "would end the head early; send no NUL in the head");
  }
  if (head.folded) {
    return bad_request(
        "a header line starts with a space or a tab: a line folded onto the one before (obs-fold) "
        "is refused (RFC 9112, 5.2); send each header on one line");
  }
  for (const auto& [name, value] : head.headers) {
    if (!is_token(name)) {
      return bad_request("the header name " + quote(name) +
                         " is not a token (RFC 9112, 5.1 and 5.2): no whitespace before its colon, and no line "
                         "folded onto the one before (obs-fold)");
    }
    if (std::any_of(value.begin(), value.end(), [](unsigned char c) { return is_control(c) && c != '\t'; })) {
      return bad_request("the header " + quote(name) + " holds a control character (RFC 9110, 5.5)");
    }
  }
  if (head.values("Host").size() > 1) return bad_request("Host is given more than once (RFC 9112, 3.2)");
  if (const std::vector<std::string> codings = head.values("Transfer-Encoding"); !codings.empty()) {
    return coding_refusal(head, codings);
  }
  return length_refusal(head.values("Content-Length"));
}

std::optional<HttpAnswer> audience_answer(const RequestHead& head, const Audience& audience) {
  if (std::optional<HttpAnswer> refused = host_refusal(head, audience)) return refused;
  const std::vector<std::string> origins = head.values("Origin");
  if (origins.empty()) return std::nullopt;  // not from a browser's page, or a same-origin GET
  if (origins.size() > 1) return bad_request("Origin is given more than once");
  const std::string own = "http://" + lower(trimmed(head.values("Host")[0]));
  if (lower(trimmed(origins[0])) == own) return std::nullopt;  // its own page
  const std::string origin = allowed_cross_origin(head, audience);
  if (origin.empty()) {
    return json_error(403, "requests from the page at " + quote(origins[0]) +
                               " are refused: only serve's own page may use it (start serve with --allow-origin " +
                               shorten(origins[0]) + " to allow that page)");
  }
  if (head.method == "OPTIONS" && !head.values("Access-Control-Request-Method").empty()) {  // its preflight
    return HttpAnswer{204,
                      "text/plain",
                      "",
                      {{"Access-Control-Allow-Origin", origin},
                       {"Access-Control-Allow-Methods", "GET, POST"},
                       {"Access-Control-Allow-Headers", "Content-Type"},
                       {"Access-Control-Max-Age", "600"},
                       {"Vary", "Origin"}}};
  }
  return std::nullopt;
}

std::string allowed_cross_origin(const RequestHead& head, const Audience& audience) {
  const std::vector<std::string> origins = head.values("Origin");
  if (origins.size() != 1) return "";
  const std::string origin = trimmed(origins[0]);
  const bool allowed = std::find(audience.allowed_origins.begin(), audience.allowed_origins.end(), lower(origin)) !=
                       audience.allowed_origins.end();
  return allowed ? origin : "";
}

}  // namespace attnlab
