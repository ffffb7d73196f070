// imds-emulator's command-line values: --vm NAME,FAULT_DOMAIN,HOST:PORT and listen addresses (loopback only).
#pragma once

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "state/result.hpp"

namespace cla {

struct ListenAddress {
  boost::asio::ip::address address;
  std::uint16_t port = 0;  // 0: any free port (announced on stdout)
};

struct VmOption {
  std::string name;
  int fault_domain = 0;
  ListenAddress listen;
  std::string zone;  // the availability zone its compute document names ("" : none)
};

// "127.0.0.1:8080", "[::1]:0", "localhost:0". The host must be an IP literal or localhost; a non-loopback
// address is refused unless allow_remote (the emulator has no authentication and must not face a network).
Result<ListenAddress> parse_listen_address(std::string_view text, bool allow_remote);

// "vm0,0,127.0.0.1:8080[,2]": a VM name (letters, digits, '-', '_', '.'), its platform fault domain 0..1000,
// where its IMDS listens, and optionally its availability zone.
Result<VmOption> parse_vm_option(std::string_view text, bool allow_remote);

// "127.0.0.1:41234" or "[::1]:41234".
std::string endpoint_text(const boost::asio::ip::tcp::endpoint& endpoint);

}  // namespace cla
