// cassandra.jolokia.url: the agent's context as the path, the port required, plain http to loopback only.
#include "cassandra/jolokia/jolokia_url.hpp"

#include <boost/test/unit_test.hpp>

BOOST_AUTO_TEST_SUITE(jolokia_url_test)

BOOST_AUTO_TEST_CASE(accepted) {
  struct Case {
    const char* url;
    const char* host;
    unsigned port;
    bool tls;
    const char* path;
  };
  const Case cases[] = {
      {"http://127.0.0.1:8778/jolokia", "127.0.0.1", 8778, false, "/jolokia"},
      {"http://127.0.0.31:8778/jolokia/", "127.0.0.31", 8778, false, "/jolokia/"},
      {"http://[::1]:8778/j4p", "::1", 8778, false, "/j4p"},
      {"http://[::ffff:127.0.0.1]:8778/jolokia", "::ffff:127.0.0.1", 8778, false, "/jolokia"},
      {"http://localhost:8778", "localhost", 8778, false, "/"},
      {"https://cassandra-1.example:8443/jolokia", "cassandra-1.example", 8443, true, "/jolokia"},
      {"https://10.0.0.5:8778/jolokia", "10.0.0.5", 8778, true, "/jolokia"},
  };
  for (const auto& c : cases) {
    const auto url = cla::parse_jolokia_url(c.url);
    BOOST_TEST_REQUIRE(url.ok(), c.url << ": " << (url ? "" : url.error().message));
    BOOST_TEST(url->endpoint.host == c.host, c.url);
    BOOST_TEST(url->endpoint.port == c.port, c.url);
    BOOST_TEST(url->endpoint.tls == c.tls, c.url);
    BOOST_TEST(url->path == c.path, c.url);
  }
}

BOOST_AUTO_TEST_CASE(refused_with_the_reason) {
  const std::pair<const char*, const char*> cases[] = {
      {"http://10.0.0.5:8778/jolokia", "plain http only to a loopback address"},
      {"http://cassandra-1.example:8778/jolokia", "plain http only to a loopback address"},
      {"http://127.0.0.1/jolokia", "the port is required"},
      {"http://cla:secret@127.0.0.1:8778/jolokia", "use cassandra.jolokia.username and password_file"},
      {"http://127.0.0.1:8778/jolokia?maxDepth=3", "no query or fragment"},
      {"ftp://127.0.0.1:8778/jolokia", "the scheme must be http or https"},
      {"127.0.0.1:8778", "not a URL"},
      {"", "not a URL"},
  };
  for (const auto& [url, reason] : cases) {
    const auto parsed = cla::parse_jolokia_url(url);
    BOOST_TEST_REQUIRE(!parsed.ok(), url);
    BOOST_TEST(parsed.error().message.starts_with("cassandra.jolokia.url"), parsed.error().message);
    BOOST_TEST(parsed.error().message.find(reason) != std::string::npos, parsed.error().message);
  }
}

BOOST_AUTO_TEST_SUITE_END()
