// The IMDS endpoint URL ("http://169.254.169.254", "http://127.0.0.1:8080"), checked once for client and
// config.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "state/result.hpp"

namespace cla {

struct Endpoint {
  std::string host;         // an IP address literal ("127.0.0.1", "::1"), or "localhost"
  std::uint16_t port = 80;  // 80 when the URL has none
};

// Accepts http://HOST[:PORT][/] and nothing else: scheme http (IMDS has no TLS), no user info, no path other
// than "/", no query or fragment. HOST must be an IPv4/IPv6 literal or "localhost": IMDS has no DNS name, and
// resolving one would add a failure mode (and a spoofing risk) to every poll. Errors say what is wrong.
Result<Endpoint> parse_endpoint(std::string_view url);

// The Host header value for the endpoint: "127.0.0.1:8080", "[::1]:8080", or just the host on port 80.
std::string host_header(const Endpoint& endpoint);

}  // namespace cla
