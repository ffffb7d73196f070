// IMDS endpoint URL validation, shared by the client and the agent's config check.
#include "imds/endpoint.hpp"

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(endpoint_test)

BOOST_AUTO_TEST_CASE(accepts_http_ip_literals_and_localhost) {
  struct Case {
    const char* url;
    const char* host;
    unsigned port;
    const char* header;
  };
  const Case cases[] = {
      {"http://127.0.0.2", "127.0.0.2", 80, "127.0.0.2"},
      {"http://127.0.0.2/", "127.0.0.2", 80, "127.0.0.2"},
      {"http://127.0.0.1:8080", "127.0.0.1", 8080, "127.0.0.1:8080"},
      {"HTTP://127.0.0.1:41234/", "127.0.0.1", 41234, "127.0.0.1:41234"},
      {"http://[::1]:9000", "::1", 9000, "[::1]:9000"},
      {"http://localhost:80", "localhost", 80, "localhost"},
      {"http://127.0.0.1:", "127.0.0.1", 80, "127.0.0.1"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.url) {
      const auto r = cla::parse_endpoint(c.url);
      BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().message));
      BOOST_TEST(r->host == c.host);
      BOOST_TEST(r->port == c.port);
      BOOST_TEST(cla::host_header(*r) == c.header);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_anything_else_saying_why) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "not a URL"},
      {"127.0.0.1:8080", "not a URL like http://127.0.0.1:8080"},
      {"https://127.0.0.1", "scheme must be http"},
      {"http://", "missing host"},
      {"http://user:pw@127.0.0.1", "user info"},
      {"http://127.0.0.1/metadata/scheduledevents", "no path"},
      {"http://127.0.0.1/?api-version=1", "no query"},
      {"http://127.0.0.1/#x", "no query or fragment"},
      {"http://metadata.azure.internal", "IP address or localhost"},
      {"http://127.0.0.1:0", "1..65535"},
      {"http://127.0.0.1:99999", "1..65535"},
      {"http://127.0.0.1:65536", "1..65535"},
      {"http://127.0.0.1:80a", "no path"},
  };
  for (const auto& [url, why] : cases) {
    BOOST_TEST_CONTEXT(url) {
      const auto r = cla::parse_endpoint(url);
      BOOST_TEST_REQUIRE(!r.ok());
      BOOST_TEST(r.error().message.find(why) != std::string::npos, r.error().message);
      BOOST_TEST(r.error().message.find("endpoint \"") == 0u);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
