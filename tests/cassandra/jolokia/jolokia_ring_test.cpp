// status and ring from a ring view, as 5.0's nodetool computes them: addresses without the port (IPv6 too),
// the token map back in ring order, nodetool's status and state precedence, DCs sorted, "?" for what is
// unknown, the vnodes warning, and an endpoint the snitch was not asked about.
#include "cassandra/jolokia/jolokia_ring.hpp"

#include <boost/test/unit_test.hpp>

namespace {

using namespace cla;

RingView two_dcs() {
  RingView view;
  view.live = {"10.0.0.1:7000", "10.0.0.3:7000", "[::5]:7000"};
  view.unreachable = {"10.0.0.2:7000"};
  view.joining = {"10.0.0.3:7000"};
  view.leaving = {"10.0.0.3:7000", "10.0.0.2:7000"};  // joining wins, as in nodetool
  view.moving = {"10.0.0.2:7000"};                    // leaving wins
  view.tokens = {{"-20", "10.0.0.2:7000"}, {"-3", "[::5]:7000"},    {"7", "10.0.0.1:7000"},
                 {"9", "10.0.0.2:7000"},   {"12", "10.0.0.3:7000"}, {"30", "10.0.0.4:7000"}};
  view.loads = {{"10.0.0.1:7000", "1 KiB"}, {"10.0.0.2:7000", "2 KiB"}};
  view.host_ids = {{"10.0.0.1:7000", "id1"}, {"10.0.0.2:7000", "id2"}, {"[::5]:7000", "id5"}};
  return view;
}

Places places() {
  return {{"10.0.0.1:7000", {"dc2", "r1"}},
          {"10.0.0.2:7000", {"dc2", "r2"}},
          {"10.0.0.3:7000", {"dc2", "r3"}},
          {"10.0.0.4:7000", {"dc2", "r1"}},
          {"[::5]:7000", {"dc1", "r1"}}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(jolokia_ring_test)

BOOST_AUTO_TEST_CASE(addresses_lose_their_port_as_nodetool_prints_them) {
  BOOST_TEST(host_of("127.0.0.1:7000") == "127.0.0.1");
  BOOST_TEST(host_of("[0:0:0:0:0:0:0:1]:7000") == "0:0:0:0:0:0:0:1");
  BOOST_TEST(host_of("127.0.0.1") == "127.0.0.1");
  BOOST_TEST(host_of("::1") == "::1");
  BOOST_TEST(host_of("node-1.example:7001") == "node-1.example");
}

BOOST_AUTO_TEST_CASE(status_rows_by_dc_in_ring_order_with_nodetools_precedence) {
  const auto status = make_cluster_status(two_dcs(), places());
  BOOST_TEST_REQUIRE(status.ok());
  const std::vector<StatusRow> expected{
      {"dc1", 'U', 'N', "::5", "?", "id5", "r1"},
      {"dc2", 'D', 'L', "10.0.0.2", "2 KiB", "id2", "r2"},
      {"dc2", 'U', 'N', "10.0.0.1", "1 KiB", "id1", "r1"},
      {"dc2", 'U', 'J', "10.0.0.3", "?", "", "r3"},
      {"dc2", '?', 'N', "10.0.0.4", "?", "", "r1"},
  };
  BOOST_TEST(status->rows == expected, boost::test_tools::per_element());
  BOOST_TEST(!status->note);
}

BOOST_AUTO_TEST_CASE(ring_rows_per_token_by_dc) {
  const auto ring = make_ring_table(two_dcs(), places());
  BOOST_TEST_REQUIRE(ring.ok());
  const std::vector<RingRow> expected{
      {"dc1", "::5", "r1", "Up", "Normal", "?", "?", "-3"},
      {"dc2", "10.0.0.2", "r2", "Down", "Leaving", "2 KiB", "?", "-20"},
      {"dc2", "10.0.0.1", "r1", "Up", "Normal", "1 KiB", "?", "7"},
      {"dc2", "10.0.0.2", "r2", "Down", "Leaving", "2 KiB", "?", "9"},
      {"dc2", "10.0.0.3", "r3", "Up", "Joining", "?", "?", "12"},
      {"dc2", "10.0.0.4", "r1", "?", "Normal", "?", "?", "30"},
  };
  BOOST_TEST(ring->rows == expected, boost::test_tools::per_element());
  BOOST_TEST(ring->vnodes_warning);  // 10.0.0.2 has two tokens
  BOOST_TEST(ring->notes.empty());
  RingView one_token_each = two_dcs();
  one_token_each.tokens.erase(one_token_each.tokens.begin() + 3);
  BOOST_TEST(!make_ring_table(one_token_each, places())->vnodes_warning);
}

BOOST_AUTO_TEST_CASE(an_endpoint_without_a_place_fails_naming_it) {
  Places some = places();
  some.erase("10.0.0.4:7000");
  const auto status = make_cluster_status(two_dcs(), some);
  BOOST_TEST_REQUIRE(!status.ok());
  BOOST_TEST(status.error().message == "no datacenter and rack for endpoint 10.0.0.4:7000 of the token map");
  BOOST_TEST(!make_ring_table(two_dcs(), some).ok());
}

BOOST_AUTO_TEST_CASE(the_token_map_comes_back_in_ring_order) {
  // Jolokia hands a map over in its own order (as captured: 3074457345618258602 first).
  const auto calls = ring_view_calls();
  const auto values = parse_jolokia_answer(
      R"({"value":{"LiveNodesWithPort":[],"UnreachableNodesWithPort":[],"JoiningNodesWithPort":[],)"
      R"("LeavingNodesWithPort":[],"MovingNodesWithPort":[],"LoadMapWithPort":{},)"
      R"("EndpointWithPortToHostId":{},)"
      R"("TokenToEndpointWithPortMap":{"3074457345618258602":"c:7000","-9223372036854775808":"a:7000",)"
      R"("100":"a:7000","-3074457345618258603":"b:7000","99":"c:7000"}},"status":200})",
      calls);
  BOOST_TEST_REQUIRE(values.ok());
  const auto view = read_ring_view(values.value());
  BOOST_TEST_REQUIRE(view.ok());
  std::vector<std::string> tokens;
  for (const auto& [token, endpoint] : view->tokens) tokens.push_back(token);
  BOOST_TEST(tokens == (std::vector<std::string>{"-9223372036854775808", "-3074457345618258603", "99", "100",
                                                 "3074457345618258602"}),
             boost::test_tools::per_element());
  BOOST_TEST(view->endpoints() == (std::vector<std::string>{"a:7000", "b:7000", "c:7000"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()
