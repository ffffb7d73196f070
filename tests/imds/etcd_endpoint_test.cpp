// etcd endpoint URLs, shared by the client and the coordination config: what is accepted, and why not.
#include <boost/test/unit_test.hpp>

#include "imds/endpoint.hpp"

BOOST_AUTO_TEST_SUITE(etcd_endpoint_test)

BOOST_AUTO_TEST_CASE(accepts_ip_literals_and_dns_names_with_a_port) {
  struct Case {
    const char* url;
    const char* host;
    unsigned port;
    bool tls;
  };
  const Case cases[] = {
      {"http://10.0.0.5:2379", "10.0.0.5", 2379, false},
      {"http://10.0.0.5:2379/", "10.0.0.5", 2379, false},
      {"HTTP://[::1]:2379", "::1", 2379, false},
      {"http://localhost:2379", "localhost", 2379, false},
      {"http://etcd-0.etcd.cassandra.svc.cluster.local:2379", "etcd-0.etcd.cassandra.svc.cluster.local", 2379,
       false},
      {"http://etcd1:80", "etcd1", 80, false},
      {"https://10.0.0.5:2379", "10.0.0.5", 2379, true},
      {"HTTPS://etcd-1.example:2379/", "etcd-1.example", 2379, true},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.url) {
      const auto r = cla::parse_etcd_endpoint(c.url);
      BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().message));
      BOOST_TEST(r->host == c.host);
      BOOST_TEST(r->port == c.port);
      BOOST_TEST(r->tls == c.tls);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_anything_else_saying_why) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "not a URL like http://10.0.0.5:2379"},
      {"10.0.0.5:2379", "not a URL like http://10.0.0.5:2379"},
      {"https://10.0.0.5", "the port is required"},
      {"unix:///run/etcd.sock", "the scheme must be http or https"},
      {"http://10.0.0.5", "the port is required"},
      {"http://10.0.0.5:", "the port is required"},
      {"http://10.0.0.5:0", "1..65535"},
      {"http://10.0.0.5:2379/v3", "no path allowed (the client adds /v3/...)"},
      {"http://10.0.0.5:2379?x=1", "no query"},
      {"http://root:pw@10.0.0.5:2379", "user info is not allowed"},
      {"http://et%63d:2379", "must not be percent-encoded"},
  };
  for (const auto& [url, why] : cases) {
    BOOST_TEST_CONTEXT(url) {
      const auto r = cla::parse_etcd_endpoint(url);
      BOOST_TEST_REQUIRE(!r.ok());
      BOOST_TEST(r.error().message.find(why) != std::string::npos, r.error().message);
      BOOST_TEST(r.error().message.find("etcd endpoint \"") == 0u);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
