// See address_without_lookup.hpp. Apart from http_connection.cpp so that the parsers' fuzz targets, which
// clang 14 builds without coroutines, can link the loopback rules.
#include "imds/transport/address_without_lookup.hpp"

namespace cla {

std::optional<boost::asio::ip::address> address_without_lookup(const std::string& host) {
  if (host == "localhost") return boost::asio::ip::address_v4::loopback();
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(host, ec);
  if (ec) return std::nullopt;
  return address;
}

}  // namespace cla
