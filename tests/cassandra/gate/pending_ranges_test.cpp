// Pending ranges on small hand-built rings, range by range: a joining node (ranges split at its token), a
// leaving node, two joining nodes placed one at a time, a moving node, and a ring without change.
#include "cassandra/gate/pending_ranges.hpp"

#include <boost/test/unit_test.hpp>

#include "replication_fixtures.hpp"

namespace {

using cla::test::FixtureNode;

// Five nodes of five racks, one token each (100 ... 500), node k on 10.0.0.k in rack k.
std::vector<FixtureNode> five() {
  std::vector<FixtureNode> nodes;
  for (int k = 1; k <= 5; ++k)
    nodes.push_back(
        FixtureNode{"10.0.0." + std::to_string(k), "dc1", "rack" + std::to_string(k), {100 * k}, "Normal"});
  return nodes;
}

// Each range as "(start,end] natural / pending", addresses by their last number.
std::vector<std::string> describe(const std::vector<FixtureNode>& nodes, const std::string& replication) {
  const auto table = cla::test::ring_table(nodes);
  const auto ring = cla::make_token_ring(table);
  BOOST_REQUIRE(ring.ok());
  const auto changes = cla::make_ring_changes(table);
  BOOST_REQUIRE_MESSAGE(changes.ok(), (changes.ok() ? "" : changes.error().message));
  const auto r = cla::test::replication(replication);
  const auto ranges = cla::place_write_ranges(*changes, *ring, cla::place_replicas(*ring, r), r);
  std::vector<std::string> out;
  auto names = [&](const std::vector<cla::EndpointIndex>& replicas) {
    std::string text;
    for (auto e : replicas) {
      const auto& address = changes->endpoints[e].address;
      text += address.substr(address.rfind('.') + 1);
    }
    return text;
  };
  for (const auto& range : ranges)
    out.push_back("(" + range.start + "," + range.end + "] " + names(range.natural) + " / " +
                  names(range.pending));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pending_ranges_test)

BOOST_AUTO_TEST_CASE(without_change_the_natural_ranges_have_no_pending_replica) {
  const std::vector<std::string> expected{"(500,100] 123 / ", "(100,200] 234 / ", "(200,300] 345 / ",
                                          "(300,400] 451 / ", "(400,500] 512 / "};
  BOOST_TEST(describe(five(), "NetworkTopologyStrategy {dc1=3}") == expected,
             boost::test_tools::per_element());
  const auto changes = cla::make_ring_changes(cla::test::ring_table(five()));
  BOOST_TEST(!changes->changing());
}

BOOST_AUTO_TEST_CASE(a_joining_node_is_pending_where_it_will_replicate) {
  auto nodes = five();
  nodes.push_back(FixtureNode{"10.0.0.6", "dc1", "rack6", {150}, "Joining"});
  // Natural replicas are placed without 6's token; (100,200] is split at 150. With 6 joined: (500,100] is
  // 1,6,2; (100,150] 6,2,3; (400,500] 5,1,6.
  const std::vector<std::string> expected{"(500,100] 123 / 6", "(100,150] 234 / 6", "(150,200] 234 / ",
                                          "(200,300] 345 / ",  "(300,400] 451 / ",  "(400,500] 512 / 6"};
  BOOST_TEST(describe(nodes, "NetworkTopologyStrategy {dc1=3}") == expected,
             boost::test_tools::per_element());
  // SimpleStrategy places the same here (one node per rack).
  BOOST_TEST(describe(nodes, "SimpleStrategy {replication_factor=3}") == expected,
             boost::test_tools::per_element());
  const auto changes = cla::make_ring_changes(cla::test::ring_table(nodes));
  BOOST_TEST(changes->joining == std::vector<std::string>{"10.0.0.6"}, boost::test_tools::per_element());
  BOOST_TEST(changes->endpoints.size() == 6u);
}

BOOST_AUTO_TEST_CASE(a_leaving_nodes_ranges_go_to_the_next_replicas) {
  auto nodes = five();
  nodes[0].state = "Leaving";
  // Without 1, (500,100] belongs to 2,3,4; (300,400] to 4,5,2; (400,500] to 5,2,3. Ranges 1 does not
  // replicate have no pending replica.
  const std::vector<std::string> expected{"(500,100] 123 / 4", "(100,200] 234 / ", "(200,300] 345 / ",
                                          "(300,400] 451 / 2", "(400,500] 512 / 3"};
  BOOST_TEST(describe(nodes, "NetworkTopologyStrategy {dc1=3}") == expected,
             boost::test_tools::per_element());
  nodes[1].state = "Leaving";  // 1 and 2 leave at once: the ring of 3, 4, 5 places every range on all three
  const std::vector<std::string> both{"(500,100] 123 / 45", "(100,200] 234 / 5", "(200,300] 345 / ",
                                      "(300,400] 451 / 3", "(400,500] 512 / 34"};
  BOOST_TEST(describe(nodes, "NetworkTopologyStrategy {dc1=3}") == both, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(joining_nodes_are_placed_one_at_a_time_as_cassandra_does) {
  auto nodes = five();
  nodes.push_back(FixtureNode{"10.0.0.6", "dc1", "rack6", {150}, "Joining"});
  nodes.push_back(FixtureNode{"10.0.0.7", "dc1", "rack7", {160}, "Joining"});
  // Alone, 7 would replicate (500,100] (1,7,2 without 6); with 6 joined too it would not (1,6,7). Cassandra
  // adds each joining node to the ring alone, so both are pending there.
  const auto ranges = describe(nodes, "NetworkTopologyStrategy {dc1=3}");
  BOOST_REQUIRE(ranges.size() == 7u);
  BOOST_TEST(ranges[0] == "(500,100] 123 / 67");
  BOOST_TEST(ranges[1] == "(100,150] 234 / 67");
  BOOST_TEST(ranges[2] == "(150,160] 234 / 7");
}

BOOST_AUTO_TEST_CASE(a_moving_node_is_named_and_placed_where_it_is) {
  auto nodes = five();
  nodes[2].state = "Moving";
  const auto changes = cla::make_ring_changes(cla::test::ring_table(nodes));
  BOOST_TEST(changes->moving == std::vector<std::string>{"10.0.0.3"}, boost::test_tools::per_element());
  BOOST_TEST(!changes->changing());
  BOOST_TEST(describe(nodes, "NetworkTopologyStrategy {dc1=3}").front() == "(500,100] 123 / ");
}

BOOST_AUTO_TEST_CASE(every_node_leaving_leaves_no_ring) {
  auto nodes = five();
  for (auto& n : nodes) n.state = "Leaving";
  BOOST_TEST(!cla::make_ring_changes(cla::test::ring_table(nodes)).ok());
}

BOOST_AUTO_TEST_SUITE_END()
