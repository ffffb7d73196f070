// Endpoint URLs ("http://169.254.169.254", "http://10.0.0.5:2379") checked once for client and config: IMDS's
// rules and etcd's share one parser.
#pragma once

#include <boost/asio/ip/address.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "state/result.hpp"

namespace cla {

struct Endpoint {
  std::string host;  // an IP address literal ("127.0.0.1", "::1"), "localhost", or (where allowed) a name
  std::uint16_t port = 80;  // 80 when the URL has none and the rules allow that
  bool tls = false;         // https:// (where the rules allow it)
};

// What one kind of endpoint accepts. Every URL is http://HOST[:PORT][/] (or https:// where the rules allow):
// no user info, no path other than "/", no query or fragment; the rules say which hosts and whether the
// port may be left out, and how the errors read.
struct EndpointRules {
  std::string_view label;       // starts each error: `<label> "<url>": ...`
  std::string_view example;     // "http://127.0.0.1:8080"
  std::string_view https_note;  // why https is refused (when it is)
  std::string_view path_note;   // what the client appends, e.g. "/metadata/..."
  std::string_view userinfo_note;
  bool dns_names = false;  // host names other than localhost are accepted
  bool port_required = false;
  bool https = false;     // https:// is accepted (Endpoint::tls)
  bool any_path = false;  // a path is accepted (the caller reads it: Jolokia's context, "/jolokia")
};

Result<Endpoint> parse_http_endpoint(std::string_view url, const EndpointRules& rules);

// IMDS: HOST must be an IPv4/IPv6 literal or "localhost": IMDS has no DNS name, and resolving one would add a
// failure mode (and a spoofing risk) to every poll; https is refused (IMDS has no TLS); the port defaults
// to 80.
Result<Endpoint> parse_endpoint(std::string_view url);

// etcd: an etcd member's client URL ("http://10.0.0.5:2379", "https://etcd-1.example:2379"), for the client
// and the config. HOST is an IP address literal or a DNS name resolved at each connect; the port is required
// (etcd's is usually 2379); no user info (auth is coordination.username), no path, query or fragment.
// https:// sets Endpoint::tls (coordination.tls says how).
Result<Endpoint> parse_etcd_endpoint(std::string_view url);

// Loopback: 127.0.0.0/8, ::1, and an IPv4 loopback address written as IPv6 (::ffff:127.0.0.1).
bool is_loopback(const boost::asio::ip::address& address);

// A host whose traffic never leaves this machine: a loopback literal, or localhost, which the transport
// connects to as 127.0.0.1 without a lookup (address_without_lookup): what this accepts is what is reached.
bool is_loopback_host(const std::string& host);

// The Host header value for the endpoint: "127.0.0.1:8080", "[::1]:8080", or just the host on port 80.
std::string host_header(const Endpoint& endpoint);

}  // namespace cla
