// JolokiaClientOptions: what a JolokiaClient is built from, made from the configuration's cassandra.jolokia.
// Apart from jolokia_client.hpp so that config validation (and its fuzz target, which clang 14's coverage
// cannot build with coroutines) loads them without the client's I/O.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "cassandra/jolokia/jolokia_url.hpp"
#include "imds/transport/tls_settings.hpp"
#include "state/result.hpp"

namespace cla {

struct JolokiaClientOptions {
  JolokiaUrl url;
  std::string authorization;       // the Authorization header's value, "" without auth
  std::optional<TlsSettings> tls;  // for an https:// url (required with it)
  std::size_t body_limit =
      32 << 20;  // the largest answer read: a token map of 150 nodes x 256 tokens is ~2 MB
};

// The options from the configuration's cassandra.jolokia: the url checked by parse_jolokia_url, the password
// read from `password_file` by read_secret_file (a file only its owner can access; the error says how to fix
// it). `username` and `password_file` go together: both empty means no auth.
Result<JolokiaClientOptions> jolokia_client_options(std::string_view url, const std::string& username,
                                                    const std::string& password_file,
                                                    std::optional<TlsSettings> tls = std::nullopt);

}  // namespace cla
