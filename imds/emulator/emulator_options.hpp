// imds-emulator's command-line values: --vm NAME,FAULT_DOMAIN,HOST:PORT[,ZONE][,region=REGION] and listen
// addresses (loopback only).
#pragma once

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
  std::string zone;    // the availability zone its compute document names ("" : none)
  std::string region;  // its availability set, whose events it sees ("": the default region)
};

// "127.0.0.1:8080", "[::1]:0", "localhost:0". The host must be an IP literal or localhost; a non-loopback
// address is refused unless allow_remote (the emulator has no authentication and must not face a network).
Result<ListenAddress> parse_listen_address(std::string_view text, bool allow_remote);

// "vm0,0,127.0.0.1:8080[,2][,region=eastus2]": a VM name (letters, digits, '-', '_', '.'), its platform fault
// domain 0..1000, where its IMDS listens, optionally its availability zone (1..16 letters or digits), and
// optionally its region (1..32 letters, digits or '-').
Result<VmOption> parse_vm_option(std::string_view text, bool allow_remote);

// Every --vm value in order. A name is unique within its region (compared case-insensitively, as Azure
// compares names), and the same region is spelled one way.
Result<std::vector<VmOption>> parse_vm_options(const std::vector<std::string>& texts, bool allow_remote);

// "127.0.0.1:41234" or "[::1]:41234".
std::string endpoint_text(const boost::asio::ip::tcp::endpoint& endpoint);

}  // namespace cla
