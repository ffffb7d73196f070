// nodetool describering: Cassandra 5.0.9's ranges, the error a LocalStrategy keyspace gets, and refusals.
#include "cassandra/nodetool_output/describering_parser.hpp"

#include <boost/test/unit_test.hpp>

#include "../cassandra_test_data.hpp"

namespace {

const char* const kRange =
    "\tTokenRange(start_token:-6, end_token:-5, endpoints:[127.0.0.3, 127.0.0.2], rpc_endpoints:[127.0.0.3, "
    "127.0.0.2], endpoint_details:[EndpointDetails(host:127.0.0.3, datacenter:dc1, rack:rack3), "
    "EndpointDetails(host:127.0.0.2, datacenter:dc 2, rack:r 2)])\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(describering_parser_test)

BOOST_AUTO_TEST_CASE(cassandra_5_0) {
  const auto r = cla::parse_nodetool_describering(
      cla::test::cassandra_data("real-5.0/placement/3n_16t/describering_lifecycle.stdout"));
  BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  BOOST_TEST(r->schema_version == "c88f8d6e-a8a2-34cc-b997-405cbe7a23c7");
  BOOST_TEST(r->ranges.size() == 48u);
  const auto& first = r->ranges.front();
  BOOST_TEST(first.start_token == "-6261021961604074531");
  BOOST_TEST(first.end_token == "-5793414932251158134");
  BOOST_TEST(first.endpoints == (std::vector<std::string>{"127.0.0.3", "127.0.0.2", "127.0.0.1"}),
             boost::test_tools::per_element());
  BOOST_TEST(first.endpoint_details.at(1) == (cla::EndpointDetails{"127.0.0.2", "dc1", "rack2"}));
  // A LocalStrategy keyspace: the heading on stdout, then exit 2 ("There is no ring for the keyspace").
  const auto local = cla::parse_nodetool_describering(
      cla::test::cassandra_data("real-5.0/placement/3n_16t/describering_system.stdout"));
  BOOST_REQUIRE(local.ok());
  BOOST_TEST(local->ranges.empty());
}

BOOST_AUTO_TEST_CASE(details_with_blanks) {
  std::string text = "Schema Version:v\nTokenRange: \n";  // appended piecewise (GCC 12's -Warray-bounds)
  text.append(kRange);
  const auto r = cla::parse_nodetool_describering(text);
  BOOST_REQUIRE(r.ok());
  BOOST_TEST(r->ranges.at(0).endpoint_details.at(1) == (cla::EndpointDetails{"127.0.0.2", "dc 2", "r 2"}));
}

BOOST_AUTO_TEST_CASE(refused) {
  BOOST_TEST(!cla::parse_nodetool_describering(kRange).ok());  // no schema version
  for (const char* line :
       {"TokenRange(start_token:1, end_token:2)\n",
        "TokenRange(end_token:2, start_token:1, endpoints:[], rpc_endpoints:[], endpoint_details:[])\n",
        "TokenRange(start_token:1, end_token:2, endpoints:[a, ], rpc_endpoints:[], endpoint_details:[])\n",
        "TokenRange(start_token:1, end_token:2, endpoints:[a], rpc_endpoints:[a], endpoint_details:[x])\n",
        "TokenRange(start_token:, end_token:2, endpoints:[a], rpc_endpoints:[a], endpoint_details:[])\n",
        "something else\n"}) {
    std::string text = "Schema Version:v\nTokenRange: \n";  // appended piecewise (GCC 12's -Warray-bounds)
    text.append(line);
    BOOST_TEST(!cla::parse_nodetool_describering(text).ok(), text);
  }
}

BOOST_AUTO_TEST_SUITE_END()
