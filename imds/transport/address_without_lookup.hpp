// Where a connection to a host goes without asking a resolver (HttpConnection, and every loopback rule).
#pragma once

#include <boost/asio/ip/address.hpp>
#include <optional>
#include <string>

namespace cla {

// An IP address literal as written, and "localhost" as 127.0.0.1. Every loopback rule (plain http to Jolokia,
// etcd's password over http) takes localhost for this machine, so no hosts file or DNS answer may send it
// elsewhere. nullopt: a name to resolve.
std::optional<boost::asio::ip::address> address_without_lookup(const std::string& host);

}  // namespace cla
