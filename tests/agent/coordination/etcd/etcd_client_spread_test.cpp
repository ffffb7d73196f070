// Agents spread over etcd's members (issue 40): a client's first call tries the member its options name
// (first_endpoint, modulo the count), not always the first endpoint. No etcd runs here: which member a call
// will try first is known before any call.
#include <boost/asio/io_context.hpp>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "agent/coordination/etcd/etcd_client.hpp"

BOOST_AUTO_TEST_SUITE(etcd_client_spread_test)

BOOST_AUTO_TEST_CASE(the_first_call_tries_the_member_first_endpoint_names) {
  boost::asio::io_context ioc;
  const std::vector<std::string> endpoints{"http://127.0.0.1:2379", "http://127.0.0.1:2380",
                                           "http://127.0.0.1:2381"};
  for (std::size_t first : {0u, 1u, 2u, 3u, 7u}) {
    cla::EtcdClientOptions options;
    options.endpoints = endpoints;
    options.first_endpoint = first;
    const cla::EtcdClient client(ioc.get_executor(), options);
    BOOST_TEST(client.current_endpoint() == endpoints[first % endpoints.size()], "first_endpoint " << first);
  }
  cla::EtcdClientOptions none;
  none.first_endpoint = 5;
  const cla::EtcdClient without(ioc.get_executor(), none);
  BOOST_TEST(without.current_endpoint().empty());
}

BOOST_AUTO_TEST_SUITE_END()
