// Small clusters for the placement and verdict suites: rings from (address, dc, rack, tokens), statuses from
// "UN"/"DN"... per address, keyspaces from their describecluster text.
#pragma once

#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cassandra/gate/replica_placement.hpp"
#include "cassandra/gate/replication_verdict.hpp"
#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"

namespace cla::test {

struct FixtureNode {
  std::string address, dc, rack;
  std::vector<std::int64_t> tokens;
  std::string state = "Normal";
};

inline RingTable ring_table(const std::vector<FixtureNode>& nodes) {
  RingTable table;
  for (const auto& n : nodes)
    for (auto t : n.tokens)
      table.rows.push_back(RingRow{n.dc, n.address, n.rack, "Up", n.state, "?", "?", std::to_string(t)});
  return table;
}

inline TokenRing token_ring(const std::vector<FixtureNode>& nodes) {
  auto ring = make_token_ring(ring_table(nodes));
  BOOST_REQUIRE_MESSAGE(ring.ok(), (ring.ok() ? "" : ring.error().message));
  return ring.value();
}

inline Replication replication(const std::string& text) {
  auto r = parse_replication(text);
  BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return r.value();
}

// "name -> Class {..}" per keyspace, one schema version, no node joining/leaving/moving.
inline ClusterDescription description(const std::vector<std::pair<std::string, std::string>>& keyspaces) {
  ClusterDescription d;
  d.name = "test";
  d.schema_versions["c88f8d6e-a8a2-34cc-b997-405cbe7a23c7"] = {};
  d.counts = NodeCounts{};
  d.keyspaces.emplace();
  for (const auto& [name, text] : keyspaces)
    d.keyspaces->push_back(KeyspaceReplication{name, replication(text)});
  return d;
}

inline ReplicationSnapshot snapshot(const std::vector<FixtureNode>& nodes,
                                    const std::vector<std::pair<std::string, std::string>>& keyspaces) {
  auto s = make_replication_snapshot(description(keyspaces), ring_table(nodes));
  BOOST_REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
  return s.value();
}

// Every node up in the state of its ring rows (UN, UJ for Joining, UL, UM) but those listed with another
// status/state ("DN", "DJ", ...).
inline ClusterStatus status_of(const std::vector<FixtureNode>& nodes,
                               const std::map<std::string, std::string>& not_un = {}) {
  ClusterStatus status;
  for (const auto& n : nodes) {
    const auto it = not_un.find(n.address);
    const std::string s =
        it == not_un.end() ? std::string{'U', n.state == "Normal" ? 'N' : n.state[0]} : it->second;
    status.rows.push_back(StatusRow{n.dc, s[0], s[1], n.address, "?", "", n.rack});
  }
  return status;
}

// n nodes of one DC, node k (1-based) on 10.0.0.k in rack ((k-1) % racks) + 1, tokens evenly spaced: with t
// tokens each, token j of node k is (j * n + k - 1) * step - 2^63 (so the ring order is node 1, 2, ..., n, 1,
// ...).
inline std::vector<FixtureNode> even_ring(int n, int racks, int tokens = 1, const std::string& dc = "dc1",
                                          int first = 1, std::int64_t offset = 0) {
  std::vector<FixtureNode> nodes;
  const std::uint64_t step = UINT64_MAX / static_cast<std::uint64_t>(n * tokens);
  for (int k = 1; k <= n; ++k) {
    FixtureNode node{
        "10.0.0." + std::to_string(first + k - 1), dc, "rack" + std::to_string((k - 1) % racks + 1), {}};
    for (int j = 0; j < tokens; ++j)  // modulo 2^64, as C++20 converts: index * step - 2^63 + offset
      node.tokens.push_back(static_cast<std::int64_t>(static_cast<std::uint64_t>(j * n + k - 1) * step +
                                                      0x8000000000000000ull +
                                                      static_cast<std::uint64_t>(offset)));
    nodes.push_back(node);
  }
  return nodes;
}

}  // namespace cla::test
