// When one rack's drains may be admitted together: no range places two replicas in the rack.
#include "cassandra/gate/rack_batching.hpp"

#include <boost/test/unit_test.hpp>

#include "replication_fixtures.hpp"

namespace {

using cla::test::even_ring;
using cla::test::snapshot;
using Keyspaces = std::vector<std::pair<std::string, std::string>>;

const Keyspaces kNts3{{"app", "NetworkTopologyStrategy {dc1=3}"}};

}  // namespace

BOOST_AUTO_TEST_SUITE(rack_batching_test)

BOOST_AUTO_TEST_CASE(one_replica_per_rack_when_racks_cover_the_factor) {
  struct Row {
    const char* what;
    int nodes, racks, tokens;
    Keyspaces keyspaces;
    bool batched;
  };
  const std::vector<Row> rows = {
      {"9 nodes, 3 racks, NTS dc1=3", 9, 3, 1, kNts3, true},
      {"9 nodes, 3 racks, 16 tokens each", 9, 3, 16, kNts3, true},
      {"6 nodes, 2 racks, NTS dc1=3: a rack holds two replicas of some range", 6, 2, 1, kNts3, false},
  };
  for (const auto& row : rows) {
    BOOST_TEST_CONTEXT(row.what) {
      const auto s = snapshot(even_ring(row.nodes, row.racks, row.tokens), row.keyspaces);
      BOOST_TEST(cla::rack_holds_one_replica_per_range(s, "dc1", "rack1") == row.batched);
    }
  }
}

// Racks in runs along the ring (nodes 1-3 rack1, 4-6 rack2, 7-9 rack3): NetworkTopologyStrategy still takes
// one replica per rack; SimpleStrategy takes the next three nodes, often of one rack, and one such keyspace
// among others is enough to refuse.
BOOST_AUTO_TEST_CASE(simple_strategy_batches_only_where_its_placement_allows) {
  auto nodes = even_ring(9, 3);
  for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i].rack = "rack" + std::to_string(i / 3 + 1);
  BOOST_TEST(cla::rack_holds_one_replica_per_range(snapshot(nodes, kNts3), "dc1", "rack1"));
  const Keyspaces both{{"app", "NetworkTopologyStrategy {dc1=3}"},
                       {"s", "SimpleStrategy {replication_factor=3}"}};
  BOOST_TEST(!cla::rack_holds_one_replica_per_range(snapshot(nodes, both), "dc1", "rack1"));
}

BOOST_AUTO_TEST_CASE(a_changing_ring_never_batches) {
  auto nodes = even_ring(9, 3);
  nodes.back().state = "Leaving";
  BOOST_TEST(!cla::rack_holds_one_replica_per_range(snapshot(nodes, kNts3), "dc1", "rack1"));
}

BOOST_AUTO_TEST_SUITE_END()
