// The HTTP endpoint's exposure: loopback addresses say nothing; any other address (the unspecified ones
// included) gets http_listen_exposed's fields naming what it serves and how to restrict it.
#include "agent/http/http_exposure.hpp"

#include <boost/test/unit_test.hpp>
#include <string>

#include "imds/endpoint.hpp"

namespace {

namespace ip = boost::asio::ip;

ip::tcp::endpoint at(const char* address, unsigned short port = 9137) {
  return {ip::make_address(address), port};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_exposure_test)

BOOST_AUTO_TEST_CASE(loopback_addresses_are_not_exposed) {
  for (const char* address : {"127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "::ffff:127.0.0.1"}) {
    BOOST_TEST(cla::is_loopback(ip::make_address(address)), address);
    BOOST_TEST(!cla::exposure_warning(address, at(address)), address);
  }
}

BOOST_AUTO_TEST_CASE(every_other_address_is_exposed) {
  for (const char* address : {"0.0.0.0", "::", "10.0.0.4", "128.0.0.1", "::ffff:10.0.0.4", "fe80::1", "::2"})
    BOOST_TEST(!cla::is_loopback(ip::make_address(address)), address);
}

BOOST_AUTO_TEST_CASE(the_warning_names_the_listen_address_the_routes_and_a_hint) {
  const auto warning = cla::exposure_warning("0.0.0.0:0", at("0.0.0.0", 40123));
  BOOST_REQUIRE(warning.has_value());
  BOOST_TEST(warning->at("listen").as_string() == "0.0.0.0:0");
  const std::string serves(warning->at("serves").as_string());
  for (const char* part : {"/healthz", "/metrics (this VM's name", "/state (the agent's state",
                           "without authentication", "any address of this host on port 40123"})
    BOOST_TEST(serves.find(part) != std::string::npos, part << " in " << serves);
  const std::string hint(warning->at("hint").as_string());
  BOOST_TEST(hint.find("127.0.0.1") != std::string::npos, hint);
  BOOST_TEST(hint.find("NetworkPolicy") != std::string::npos, hint);

  const auto one = cla::exposure_warning("10.0.0.4:9137", at("10.0.0.4"));
  BOOST_REQUIRE(one.has_value());
  BOOST_TEST(std::string(one->at("serves").as_string()).find("this address on port 9137") !=
             std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
