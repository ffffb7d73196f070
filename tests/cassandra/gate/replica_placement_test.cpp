// Replica placement by Cassandra's rules on small rings worked out by hand: SimpleStrategy,
// NetworkTopologyStrategy (racks first, fewer racks than RF, two nodes per rack, RF above the DC's nodes, two
// DCs), EverywhereStrategy; one placement per distinct setting, and a 150-node x 16-token ring.
#include "cassandra/gate/replica_placement.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <set>

#include "replication_fixtures.hpp"

namespace {

using cla::test::FixtureNode;

// Range by range, the replicas' addresses joined: "a,b c,d ..." in ring order of the end tokens.
std::string placed(const std::vector<FixtureNode>& nodes, const std::string& replication) {
  const auto ring = cla::test::token_ring(nodes);
  const auto placement = cla::place_replicas(ring, cla::test::replication(replication));
  std::string out;
  for (const auto& replicas : placement.replicas) {
    out += &replicas == &placement.replicas.front() ? "" : " ";
    for (std::size_t k = 0; k < replicas.size(); ++k)
      out += (k ? "," : "") + ring.endpoints[replicas[k]].address.substr(7);  // "10.0.0.5" -> "5"
  }
  return out;
}

// Nodes in this ring order, one token each, named 10.0.0.N, in the racks given.
std::vector<FixtureNode> in_order(const std::vector<std::pair<std::string, std::string>>& address_rack,
                                  const std::string& dc = "dc1") {
  std::vector<FixtureNode> nodes;
  std::int64_t token = -1000;
  for (const auto& [n, rack] : address_rack)
    nodes.push_back(FixtureNode{"10.0.0." + n, dc, rack, {token += 100}});
  return nodes;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(replica_placement_test)

BOOST_AUTO_TEST_CASE(simple_strategy_takes_the_next_distinct_endpoints) {
  const auto three = cla::test::even_ring(3, 3);
  BOOST_TEST(placed(three, "SimpleStrategy {replication_factor=1}") == "1 2 3");
  BOOST_TEST(placed(three, "SimpleStrategy {replication_factor=2}") == "1,2 2,3 3,1");
  BOOST_TEST(placed(three, "SimpleStrategy {replication_factor=5}") == "1,2,3 2,3,1 3,1,2");  // RF > nodes
  // With vnodes a node's own next token is skipped: distinct endpoints, not tokens.
  BOOST_TEST(placed({FixtureNode{"10.0.0.1", "dc1", "r1", {0, 10}},
                     FixtureNode{"10.0.0.2", "dc1", "r1", {20}}, FixtureNode{"10.0.0.3", "dc1", "r1", {30}}},
                    "SimpleStrategy {replication_factor=2}") == "1,2 1,2 2,3 3,1");
}

BOOST_AUTO_TEST_CASE(network_topology_takes_racks_first) {
  // Two nodes per rack, side by side on the ring: NTS skips the rack it has seen, SimpleStrategy does not.
  const auto pairs = in_order({{"1", "r1"}, {"2", "r1"}, {"3", "r2"}, {"4", "r2"}, {"5", "r3"}, {"6", "r3"}});
  BOOST_TEST(placed(pairs, "NetworkTopologyStrategy {dc1=3}") == "1,3,5 2,3,5 3,5,1 4,5,1 5,1,3 6,1,3");
  BOOST_TEST(placed(pairs, "SimpleStrategy {replication_factor=3}") == "1,2,3 2,3,4 3,4,5 4,5,6 5,6,1 6,1,2");
  BOOST_TEST(placed(pairs, "NetworkTopologyStrategy {dc1=2}") == "1,3 2,3 3,5 4,5 5,1 6,1");
}

BOOST_AUTO_TEST_CASE(fewer_racks_than_rf_take_the_first_repeats_met) {
  // RF 3 over 2 racks: one endpoint of a seen rack may be taken, the first met (Cassandra 3.0+; 2.x added the
  // skipped ones only once every rack was seen, in another order).
  const auto two_racks = in_order({{"1", "r1"}, {"2", "r1"}, {"3", "r2"}, {"4", "r2"}});
  BOOST_TEST(placed(two_racks, "NetworkTopologyStrategy {dc1=3}") == "1,2,3 2,3,4 3,4,1 4,1,2");
  // One rack: NTS is SimpleStrategy.
  const auto one_rack = in_order({{"1", "r1"}, {"2", "r1"}, {"3", "r1"}});
  BOOST_TEST(placed(one_rack, "NetworkTopologyStrategy {dc1=2}") == "1,2 2,3 3,1");
  // RF 4 over 3 racks of two nodes: three racks, then the first repeat met.
  const auto pairs = in_order({{"1", "r1"}, {"2", "r1"}, {"3", "r2"}, {"4", "r2"}, {"5", "r3"}, {"6", "r3"}});
  BOOST_TEST(placed(pairs, "NetworkTopologyStrategy {dc1=4}") ==
             "1,2,3,5 2,3,4,5 3,4,5,1 4,5,6,1 5,6,1,3 6,1,2,3");
}

BOOST_AUTO_TEST_CASE(rf_above_the_nodes_of_a_dc_takes_them_all) {
  const auto three = cla::test::even_ring(3, 3);
  BOOST_TEST(placed(three, "NetworkTopologyStrategy {dc1=4}") == "1,2,3 2,3,1 3,1,2");
  BOOST_TEST(placed(three, "NetworkTopologyStrategy {dc1=0}") == "  ");  // no replica: three empty ranges
  BOOST_TEST(placed(three, "NetworkTopologyStrategy {dc9=3}") == "  ");  // a DC without nodes
  BOOST_TEST(placed(three, "NetworkTopologyStrategy {dc1=2, dc9=3}") == "1,2 2,3 3,1");
}

BOOST_AUTO_TEST_CASE(two_dcs_fill_in_one_walk) {
  auto nodes = cla::test::even_ring(3, 3, 1, "dc1", 1);
  const auto dc2 =
      cla::test::even_ring(3, 3, 1, "dc2", 4, 100);  // ccm's offset: dc2's tokens 100 above dc1's
  nodes.insert(nodes.end(), dc2.begin(), dc2.end());
  // Ring order 1,4,2,5,3,6: replicas interleave in the order met.
  BOOST_TEST(placed(nodes, "NetworkTopologyStrategy {dc1=2, dc2=1}") ==
             "1,4,2 4,2,3 2,5,3 5,3,1 3,6,1 6,1,2");
  BOOST_TEST(placed(nodes, "NetworkTopologyStrategy {dc2=2}") == "4,5 4,5 5,6 5,6 6,4 6,4");
  BOOST_TEST(placed(nodes, "SimpleStrategy {replication_factor=2}") == "1,4 4,2 2,5 5,3 3,6 6,1");
}

BOOST_AUTO_TEST_CASE(everywhere_and_transient_and_unplaceable) {
  const auto three = cla::test::even_ring(3, 3);
  BOOST_TEST(placed(three, "EverywhereStrategy {}") == "1,2,3 2,3,1 3,1,2");
  BOOST_TEST(placed(three, "NetworkTopologyStrategy {dc1=3/1}") ==
             placed(three, "NetworkTopologyStrategy {dc1=3}"));
  BOOST_TEST(placed(three, "LocalStrategy {}").empty());
  BOOST_TEST(placed(three, "com.example.TheirStrategy {dc1=3}").empty());
}

BOOST_AUTO_TEST_CASE(keyspaces_of_one_setting_share_one_placement) {
  const auto ring = cla::test::token_ring(cla::test::even_ring(6, 3, 4));
  const auto d = cla::test::description({{"a", "NetworkTopologyStrategy {dc1=3}"},
                                         {"b", "NetworkTopologyStrategy {dc1=3/1}"},
                                         {"c", "SimpleStrategy {replication_factor=3}"},
                                         {"d", "NetworkTopologyStrategy {dc1=3, dc2=0}"},
                                         {"e", "LocalStrategy {}"}});
  const auto placements = cla::place_keyspaces(ring, *d.keyspaces);
  BOOST_TEST(placements.by_key.size() == 2u);
  BOOST_TEST(placements.find((*d.keyspaces)[0].replication) ==
             placements.find((*d.keyspaces)[1].replication));
  BOOST_TEST(placements.find((*d.keyspaces)[0].replication) ==
             placements.find((*d.keyspaces)[3].replication));
  BOOST_TEST(placements.find((*d.keyspaces)[4].replication) == nullptr);
}

BOOST_AUTO_TEST_CASE(a_fleet_ring_places_quickly) {
  // 150 nodes x 16 tokens over 3 racks (the fleet benchmark's cluster), 20 keyspaces of 4 settings.
  std::vector<FixtureNode> nodes;
  for (int k = 0; k < 150; ++k) {
    FixtureNode node{"10.1." + std::to_string(k / 100) + "." + std::to_string(k % 100),
                     "dc1",
                     "rack" + std::to_string(k % 3 + 1),
                     {}};
    for (int j = 0; j < 16; ++j)  // scattered, deterministic
      node.tokens.push_back(
          static_cast<std::int64_t>((static_cast<std::uint64_t>(k * 16 + j) * 0x9E3779B97F4A7C15ull)));
    nodes.push_back(node);
  }
  std::vector<std::pair<std::string, std::string>> keyspaces;
  const char* settings[] = {"NetworkTopologyStrategy {dc1=3}", "NetworkTopologyStrategy {dc1=5}",
                            "SimpleStrategy {replication_factor=3}", "SimpleStrategy {replication_factor=1}"};
  for (int i = 0; i < 20; ++i) keyspaces.emplace_back("ks" + std::to_string(i), settings[i % 4]);
  const auto started = std::chrono::steady_clock::now();
  const auto snapshot = cla::test::snapshot(nodes, keyspaces);
  const auto placed_at = std::chrono::steady_clock::now();
  const auto verdict = cla::evaluate_replication(snapshot, cla::test::status_of(nodes), {"10.1.0.7", "dc1"},
                                                 cla::Consistency::local_quorum);
  const auto ended = std::chrono::steady_clock::now();
  using ms = std::chrono::duration<double, std::milli>;
  const double place_ms = ms(placed_at - started).count(), verdict_ms = ms(ended - placed_at).count();
  BOOST_TEST_MESSAGE("150 x 16 tokens, 20 keyspaces: placed in " << place_ms << " ms, verdict in "
                                                                 << verdict_ms << " ms");
  BOOST_TEST(snapshot.ring.tokens.size() == 2400u);
  BOOST_TEST(snapshot.placements.by_key.size() == 4u);
  const auto& nts3 = snapshot.placements.by_key.at("NetworkTopologyStrategy{dc1=3}");
  for (const auto& replicas : nts3.replicas) {
    std::set<std::string> racks;
    for (auto e : replicas) racks.insert(snapshot.ring.endpoints[e].rack);
    BOOST_TEST(racks.size() == 3u);
  }
  BOOST_TEST(verdict.safe);
  BOOST_TEST(verdict.unprotectable.size() == 5u);  // the five SimpleStrategy RF 1 keyspaces
  BOOST_TEST(verdict.keyspaces_checked == 15u);
}

BOOST_AUTO_TEST_SUITE_END()
