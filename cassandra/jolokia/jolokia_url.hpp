// cassandra.jolokia.url (SPEC 2.3, 8.1): where the Jolokia JVM agent listens, checked once for client and
// config. Pure.
#pragma once

#include <string>
#include <string_view>

#include "imds/endpoint.hpp"
#include "state/result.hpp"

namespace cla {

struct JolokiaUrl {
  Endpoint endpoint;  // host, port, tls (https)
  std::string path;   // the agent's context, POSTed to: "/jolokia"
};

// http://HOST:PORT/PATH or https://HOST:PORT/PATH: the port is required (Jolokia's is usually 8778), the path
// is the agent's context (at least "/"), no user info (the credentials are cassandra.jolokia.username and
// password_file), no query or fragment. Plain http only to a loopback address ("localhost", 127.0.0.0/8,
// ::1): a password and the node's control must not cross a network in clear; https to any host, DNS names
// included.
Result<JolokiaUrl> parse_jolokia_url(std::string_view url);

}  // namespace cla
